import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../shared/data/common/model';
import { mapSqlError, type SqlErrorContext } from '../../shared/data/tables/errors';
import { AppError } from '../../shared/errors';

/** A PostgreSQL error as the driver reports it: the SQLSTATE and structured fields. */
function pgError(code: string, fields: Record<string, string> = {}) {
  return Object.assign(new Error('message text is never read'), { name: 'PostgresError', code, ...fields });
}

const table: CatalogEntry = {
  id: 't',
  app_id: 1,
  name: 'posts',
  physical_name: 'a1_posts',
  description: '',
  definition: { fields: [], primaryKey: ['id'], uniqueKeys: [], foreignKeys: [], indexes: [] },
  layout: {
    table: 'a1_posts',
    constraints: {
      a1_posts_slug_key: { kind: 'unique', fields: ['slug'] },
      a1_posts_a_b_key: { kind: 'unique', fields: ['a', 'b'] },
      a1_posts_views_check: { kind: 'check', fields: ['views'] },
      a1_posts_author_id_fkey: {
        kind: 'foreign',
        fields: ['author_id'],
        onDelete: 'RESTRICT',
        references: 'authors',
        referencesPhysical: 'a1_authors',
        referencedFields: ['id'],
      },
      a1_posts_folder_id_fkey: {
        kind: 'foreign',
        fields: ['folder_id'],
        onDelete: 'SET DEFAULT',
        references: 'folders',
        referencesPhysical: 'a1_folders',
        referencedFields: ['id'],
      },
    },
  },
  version: 1,
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
  site_identity: null,
  app_identity: null,
};

const noQueries = (() => {
  throw new Error('no catalog read expected');
}) as never;

function context(operation: SqlErrorContext['operation']): SqlErrorContext {
  return { sql: noQueries, schema: 'site_x', operation, table };
}

async function mapped(error: unknown, operation: SqlErrorContext['operation'] = 'write') {
  const result = await mapSqlError(error, context(operation));
  if (!(result instanceof AppError)) throw new Error('not mapped');
  return result;
}

describe('mapSqlError', () => {
  it('maps 23505 to 409 naming the field of the constraint', async () => {
    const error = await mapped(
      pgError('23505', { table_name: 'a1_posts', constraint_name: 'a1_posts_slug_key' }),
    );
    expect(error.status).toBe(409);
    expect(error.extra).toEqual({ field: 'slug' });
    expect(error.title).toBe('Unique constraint violation');
  });

  it('names every field of a composite unique key', async () => {
    const error = await mapped(
      pgError('23505', { table_name: 'a1_posts', constraint_name: 'a1_posts_a_b_key' }),
    );
    expect(error.extra).toEqual({ field: 'a,b' });
  });

  it('maps 23503 on a write to 400 foreign key violation', async () => {
    const error = await mapped(
      pgError('23503', { table_name: 'a1_posts', constraint_name: 'a1_posts_author_id_fkey' }),
    );
    expect(error.status).toBe(400);
    expect(error.title).toBe('Foreign key violation');
    expect(error.extra).toEqual({ field: 'author_id' });
  });

  it.each(['23503', '23001'])('maps %s on a delete to 403 Cannot delete record', async (code) => {
    const error = await mapped(
      pgError(code, { table_name: 'a1_posts', constraint_name: 'a1_posts_author_id_fkey' }),
      'delete',
    );
    expect(error.status).toBe(403);
    expect(error.title).toBe('Cannot delete record');
    expect(error.message).toBe(
      'Records of table "posts" still reference this record through author_id (ON DELETE RESTRICT).',
    );
  });

  it('maps a failed SET DEFAULT on a delete to 400 foreign key violation', async () => {
    const error = await mapped(
      pgError('23503', { table_name: 'a1_posts', constraint_name: 'a1_posts_folder_id_fkey' }),
      'delete',
    );
    expect(error.status).toBe(400);
    expect(error.extra).toEqual({ field: 'folder_id' });
  });

  it('maps 23502 and 23514 to validation errors of the field', async () => {
    const notNull = await mapped(pgError('23502', { table_name: 'a1_posts', column_name: 'title' }));
    expect(notNull.fields).toEqual({ title: ['This field is required.'] });
    const check = await mapped(
      pgError('23514', { table_name: 'a1_posts', constraint_name: 'a1_posts_views_check' }),
    );
    expect(check.fields).toEqual({ views: ["The value does not meet the field's constraints."] });
  });

  it('maps data exceptions to 400', async () => {
    const error = await mapped(pgError('22P05'));
    expect(error.status).toBe(400);
  });

  it('maps a statement timeout to 503 statement_timeout, never a 500', async () => {
    const error = await mapped(pgError('57014'));
    expect(error.status).toBe(503);
    expect(error.code).toBe('statement_timeout');
  });

  it('leaves other errors alone, whatever their message says', async () => {
    const unknown = pgError('XX000');
    expect(await mapSqlError(unknown, context('write'))).toBe(unknown);
    const plain = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
    });
    expect(await mapSqlError(plain, context('write'))).toBe(plain);
  });
});
