import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Visibility } from '../../shared/data/query/conditions';
import { whereClause } from '../../shared/data/query/conditions';
import { keyReadText } from '../../shared/data/records/reads';
import { columns, from, keyCondition } from '../../shared/data/records/statements';
import { siteSchemaName } from '../../shared/data/schema/names';
import { type DataTable, openTable, type TableScope, versioned } from '../../shared/data/tables/data-table';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * The get-by-key statement is text built once per table definition (shared/data/records/reads.ts): it must read
 * what the statement built from fragments reads, for every visibility, and never be shared between tenants.
 */

let platform: TestPlatform;
let first: Tenant;
let second: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  first = await createTenant(platform);
  second = await createTenant(platform);
  for (const tenant of [first, second]) {
    await createTable(tenant.owner, tenant.app.slug, 'docs', {
      fields: [
        { name: 'title', type: 'string' },
        { name: 'meta', type: 'json' },
        { name: 'is_deleted', type: 'boolean' },
      ],
    });
    await createTable(tenant.owner, tenant.app.slug, 'plain', {
      fields: [{ name: 'title', type: 'string' }],
    });
  }
});
afterAll(async () => {
  await platform.stop();
});

function scopeOf(tenant: Tenant): TableScope {
  return {
    schema: siteSchemaName(tenant.site.slug),
    site: tenant.site.slug,
    siteIdentity: (tenant.site as { created_at?: string }).created_at ?? '',
    app: { description: '', site: '', created_at: '', ...tenant.app },
  } as TableScope;
}

/** The same read built from the fragments, as the list and the other reads build theirs. */
function fragmentRead(table: DataTable, key: string, visibility: Visibility) {
  const sql = platform.deps.sql();
  const where = whereClause(sql, table, { conditions: [keyCondition(table, key)], visibility });
  return sql`${versioned(sql, table, sql`SELECT ${columns(sql, table)} FROM ${from(sql, table)} WHERE ${where}`)}`;
}

describe('the get-by-key statement built once per table definition', () => {
  it('reads what the statement built from fragments reads, for every visibility, soft delete or not', async () => {
    const sql = platform.deps.sql();
    const app = first.app.slug;
    const live = await insert(first.owner, app, 'docs', { title: 'live', meta: { a: [1, 2] } });
    const gone = await insert(first.owner, app, 'docs', { title: 'gone' });
    expect((await first.owner.delete(`${dataPath(app, 'docs')}${gone.id}/`)).status).toBe(204);
    const plain = await insert(first.owner, app, 'plain', { title: 'plain' });
    const cases = [
      { name: 'docs', keys: [live.id, gone.id, '00000000-0000-4000-8000-000000000000'] },
      { name: 'plain', keys: [plain.id] },
    ];
    let compared = 0;
    for (const { name, keys } of cases) {
      const table = await openTable(sql, scopeOf(first), name);
      for (const visibility of ['live', 'all', 'deleted'] as const)
        for (const key of keys) {
          const cached = await sql.unsafe(keyReadText(table, visibility), [
            table.entry.id,
            key,
            table.entry.updated_at,
          ]);
          const built = await fragmentRead(table, key, visibility);
          expect([...cached], `${name} ${visibility} ${key}`).toEqual([...built]);
          compared += cached.filter((row) => row.id !== null).length;
        }
    }
    // Not a comparison of empty answers only: live and gone records were found where their visibility shows them.
    expect(compared).toBe(6);
  });

  it('answers a get by key through the API with the visibility asked for', async () => {
    const app = first.app.slug;
    const doc = await insert(first.owner, app, 'docs', { title: 'soon gone' });
    const path = `${dataPath(app, 'docs')}${doc.id}/`;
    expect((await first.owner.get(path)).body.data).toMatchObject({ id: doc.id, title: 'soon gone' });
    await first.owner.delete(path);
    expect((await first.owner.get(path)).status).toBe(404);
    expect((await first.owner.get(`${path}?include_deleted=true`)).body.data).toMatchObject({
      is_deleted: true,
    });
    expect((await first.owner.get(`${path}?only_deleted=true`)).body.data).toMatchObject({ id: doc.id });
  });

  it('reads by the new definition after a field was dropped (the old text names a column that is gone)', async () => {
    const app = first.app.slug;
    await createTable(first.owner, app, 'drift', {
      fields: [
        { name: 'a', type: 'string' },
        { name: 'b', type: 'string' },
      ],
    });
    const row = await insert(first.owner, app, 'drift', { a: 'x', b: 'y' });
    const path = `${dataPath(app, 'drift')}${row.id}/`;
    expect((await first.owner.get(path)).body.data).toMatchObject({ a: 'x', b: 'y' });
    expect((await first.owner.delete(`${tablePath(app, 'drift')}fields/a/`)).status).toBe(200);
    const after = await first.owner.get(path);
    expect(after.status).toBe(200);
    expect(after.body.data).toMatchObject({ id: row.id, b: 'y' });
    expect(after.body.data).not.toHaveProperty('a');
  });

  it('keeps one text per definition and visibility, naming the tenant’s own schema and table', async () => {
    const sql = platform.deps.sql();
    const mine = await openTable(sql, scopeOf(first), 'docs');
    const theirs = await openTable(sql, scopeOf(second), 'docs');
    expect(keyReadText(mine, 'live')).toBe(keyReadText(mine, 'live'));
    expect(keyReadText(mine, 'all')).not.toBe(keyReadText(mine, 'live'));
    expect(keyReadText(mine, 'live')).toContain(`"${mine.schema}"."${mine.physical}"`);
    expect(keyReadText(theirs, 'live')).toContain(`"${theirs.schema}"."${theirs.physical}"`);
    expect(mine.schema).not.toBe(theirs.schema);
    expect(keyReadText(theirs, 'live')).not.toContain(mine.schema);
  });
});
