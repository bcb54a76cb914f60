import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteSchemaName } from '../../shared/data/schema/names';
import { createTable, dataPath, insert, tablePath, tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let app: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'authors', { fields: [{ name: 'name', type: 'string' }] });
});
afterAll(async () => {
  await platform.stop();
});

/** The worked example of docs/data-tables.md. */
const booksSchema = {
  fields: [
    { name: 'title', type: 'string', constraints: { required: true, minLength: 1, maxLength: 200 } },
    { name: 'isbn', type: 'string', constraints: { unique: true, pattern: '[0-9]{13}' } },
    { name: 'status', type: 'string', constraints: { enum: ['draft', 'published'] }, default: 'draft' },
    { name: 'pages', type: 'integer', constraints: { minimum: 1, maximum: 10000 } },
    { name: 'price', type: 'number', constraints: { minimum: 0 } },
    { name: 'contact', type: 'string', format: 'email' },
    { name: 'published_on', type: 'date' },
    { name: 'metadata', type: 'object' },
    { name: 'author_id', type: 'string', format: 'uuid' },
    { name: 'created_at', type: 'datetime' },
    { name: 'updated_at', type: 'datetime' },
    { name: 'is_deleted', type: 'boolean' },
    { name: 'search_vector', type: 'tsvector', 'x-search': { fields: ['title'], language: 'english' } },
  ],
  foreignKeys: [
    {
      fields: 'author_id',
      reference: { resource: 'authors', fields: 'id' },
      'x-actions': { onDelete: 'SET NULL' },
    },
  ],
  indexes: [{ fields: ['status'] }],
};

/** A schema with one field replaced: the usual way to provoke one error. */
function withField(field: Record<string, unknown>) {
  return { fields: [{ name: 'title', type: 'string' }, field] };
}

describe('POST /api/apps/{app_slug}/datatables/', () => {
  it('creates a table and returns its normalized schema with a generated uuid key', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'books',
      description: 'The catalogue',
      schema: booksSchema,
    });
    expect(response.status).toBe(201);
    const table = response.body.data;
    expect(table).toMatchObject({ name: 'books', app, description: 'The catalogue', version: 1 });
    expect(table.schema.primaryKey).toEqual(['id']);
    expect(table.schema.fields[0]).toEqual({ name: 'id', type: 'string', format: 'uuid' });
    expect(table.schema.fields).toHaveLength(booksSchema.fields.length + 1);
    expect(table.schema.indexes).toEqual([{ name: 'status_idx', fields: ['status'], unique: false }]);
    expect(table.schema.foreignKeys).toEqual([
      {
        fields: ['author_id'],
        reference: { resource: 'authors', fields: ['id'] },
        'x-actions': { onDelete: 'SET NULL' },
      },
    ]);
    expect(new Date(table.created_at).toISOString()).toBe(table.created_at);
  });

  it('lays the table out in PostgreSQL with real constraints in the site schema', async () => {
    const sql = platform.deps.sql();
    const schema = siteSchemaName(tenant.site.slug);
    const [table] = await sql`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema} AND c.relname = ${`a${tenant.app.id}_books`}`;
    expect(table).toBeDefined();
    // PostgreSQL 18 also lists NOT NULL as constraints (contype n): count the others.
    const constraints = await sql`SELECT contype FROM pg_constraint
      WHERE conrelid = ${`${schema}.a${tenant.app.id}_books`}::regclass AND contype <> 'n'`;
    expect(constraints.map((row) => row.contype).sort()).toEqual(['c', 'c', 'c', 'c', 'c', 'f', 'p', 'u']);
    const [title] = await sql`SELECT is_nullable FROM information_schema.columns
      WHERE table_schema = ${schema} AND table_name = ${`a${tenant.app.id}_books`} AND column_name = 'title'`;
    expect(title?.is_nullable).toBe('NO');
  });

  it('returns 409 when the app already has a table of that name', async () => {
    await createTable(tenant.owner, app, 'dupes', { fields: [{ name: 'title', type: 'string' }] });
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'dupes',
      schema: { fields: [{ name: 'title', type: 'string' }] },
    });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Table exists',
      detail: `App "${app}" already has a table "dupes".`,
    });
  });

  it('returns 400 naming the field of an unknown type', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'money',
      schema: withField({ name: 'price', type: 'money' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(response.body.details['schema.fields.1.type'][0]).toMatch(
      /^Unknown type "money" for field "price"/,
    );
  });

  it('returns 400 for an unknown string format', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'formats',
      schema: withField({ name: 'site', type: 'string', format: 'hostname' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.fields.1.format'][0]).toMatch(/Unknown format "hostname"/);
  });

  it.each([
    ['Title', 'must start with a lower-case letter'],
    ['1st', 'must start with a lower-case letter'],
    ['first-name', 'must start with a lower-case letter'],
    ['select', 'is a reserved SQL word'],
    ['user', 'is a reserved SQL word'],
    ['xmin', 'is a reserved SQL word'],
    ['a__b', 'may not contain "__"'],
    ['page_size', 'is a query parameter'],
    ['x'.repeat(64), 'longer than 63 characters'],
  ])('returns 400 for the unsafe field name %s', async (name, message) => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'unsafe',
      schema: withField({ name, type: 'string' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.fields.1.name'][0]).toContain(message);
  });

  it('accepts a field name of 63 characters', async () => {
    const name = `f${'x'.repeat(62)}`;
    const table = await createTable(tenant.owner, app, 'long_names', withField({ name, type: 'string' }));
    expect(table.schema.fields.map((field: { name: string }) => field.name)).toContain(name);
  });

  it.each([
    ['Books', 'must start with a lower-case letter'],
    ['table', 'is a reserved SQL word'],
    ['books_edges', 'kept for graph edge tables'],
    ['t'.repeat(64), 'longer than 63 characters'],
  ])('returns 400 for the unsafe table name %s', async (name, message) => {
    const response = await tenant.owner.post(tablesPath(app), {
      name,
      schema: withField({ name: 'a', type: 'string' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.details.name[0]).toContain(message);
  });

  it('returns 400 for a field declared twice', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'twice',
      schema: {
        fields: [
          { name: 'title', type: 'string' },
          { name: 'title', type: 'integer' },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.fields.1.name']).toEqual(['Field "title" is declared twice.']);
  });

  it('returns 400 for a constraint that does not fit the type', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'misfit',
      schema: withField({ name: 'count', type: 'integer', constraints: { maxLength: 3 } }),
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.fields.1.constraints.maxLength']).toEqual([
      'The constraint maxLength does not apply to field "count" of type integer.',
    ]);
  });

  it('returns 400 for a default that breaks the field constraints', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'bad_default',
      schema: withField({ name: 'status', type: 'string', constraints: { enum: ['a', 'b'] }, default: 'c' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.fields.1.default'][0]).toMatch(/the default is not valid/);
  });

  it('returns 400 for a pattern PostgreSQL does not accept', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'patterns',
      schema: withField({ name: 'code', type: 'string', constraints: { pattern: '(?<year>[0-9]{4})' } }),
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.fields.1.constraints.pattern']).toEqual([
      'Field "code": PostgreSQL does not accept this regular expression.',
    ]);
  });

  it('returns 400 for a composite primary key', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'composite',
      schema: {
        fields: [
          { name: 'a', type: 'integer' },
          { name: 'b', type: 'integer' },
        ],
        primaryKey: ['a', 'b'],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.primaryKey'][0]).toMatch(/Composite primary keys are not supported/);
  });

  it('returns 400 for a foreign key to a table the app does not have', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'orphans',
      schema: {
        fields: [{ name: 'parent_id', type: 'string', format: 'uuid' }],
        foreignKeys: [{ fields: 'parent_id', reference: { resource: 'nowhere', fields: 'id' } }],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.foreignKeys.0.reference.resource']).toEqual([
      'There is no table "nowhere" in this app.',
    ]);
  });

  it('returns 400 for SET NULL on a required field', async () => {
    await createTable(tenant.owner, app, 'owners', { fields: [{ name: 'name', type: 'string' }] });
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'pets',
      schema: {
        fields: [{ name: 'owner_id', type: 'string', format: 'uuid', constraints: { required: true } }],
        foreignKeys: [
          {
            fields: 'owner_id',
            reference: { resource: 'owners', fields: 'id' },
            'x-actions': { onDelete: 'SET NULL' },
          },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.foreignKeys.0.x-actions.onDelete']).toEqual([
      'SET NULL needs field "owner_id" to be optional (not required).',
    ]);
  });

  it('returns 400 for a foreign key whose type differs from the referenced key', async () => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'mismatch',
      schema: {
        fields: [{ name: 'owner_id', type: 'integer' }],
        foreignKeys: [{ fields: 'owner_id', reference: { resource: 'owners', fields: 'id' } }],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.details['schema.foreignKeys.0.fields'][0]).toMatch(/cannot reference "owners.id"/);
  });

  it('returns 400 when the body has no schema', async () => {
    const response = await tenant.owner.post(tablesPath(app), { name: 'nothing' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { schema: ['This field is required.'] },
    });
  });

  it('returns 404 for an app that is not in the site', async () => {
    const response = await tenant.owner.post(tablesPath('no-such-app'), {
      name: 'x',
      schema: withField({ name: 'a', type: 'string' }),
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'App not found', detail: 'This site has no app "no-such-app".' });
  });

  it('uses a declared integer key, generated when omitted', async () => {
    await createTable(tenant.owner, app, 'counters', {
      fields: [
        { name: 'number', type: 'integer' },
        { name: 'label', type: 'string' },
      ],
      primaryKey: 'number',
    });
    const [first, second] = await insert(tenant.owner, app, 'counters', [{ label: 'a' }, { label: 'b' }]);
    expect(first).toEqual({ number: 1, label: 'a' });
    expect(second).toEqual({ number: 2, label: 'b' });
  });
});

describe('GET /api/apps/{app_slug}/datatables/', () => {
  it('lists the tables of the app with a total', async () => {
    const response = await tenant.owner.get(tablesPath(app));
    expect(response.status).toBe(200);
    const names = response.body.data.map((table: { name: string }) => table.name);
    expect(names).toContain('books');
    expect(names).toEqual([...names].sort());
    expect(response.body.total).toBe(names.length);
  });

  it('returns an empty list for an app without tables', async () => {
    const other = await tenant.owner.post('/api/apps/', { name: 'Empty App' });
    const response = await tenant.owner.get(tablesPath(other.body.slug));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], total: 0 });
  });
});

describe('GET /api/apps/{app_slug}/datatables/{name}/', () => {
  it('returns the table', async () => {
    const response = await tenant.owner.get(tablePath(app, 'books'));
    expect(response.status).toBe(200);
    expect(response.body.data.name).toBe('books');
  });

  it('returns 404 for an unknown table', async () => {
    const response = await tenant.owner.get(tablePath(app, 'ghosts'));
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'Table not found',
      detail: `App "${app}" has no table "ghosts".`,
    });
  });
});

describe('PATCH /api/apps/{app_slug}/datatables/{name}/', () => {
  it('changes the description and bumps the version', async () => {
    const before = await tenant.owner.get(tablePath(app, 'books'));
    const response = await tenant.owner.patch(tablePath(app, 'books'), { description: 'All our books' });
    expect(response.status).toBe(200);
    expect(response.body.data.description).toBe('All our books');
    expect(response.body.data.version).toBe(before.body.data.version + 1);
  });
});

describe('POST /api/apps/{app_slug}/datatables/{name}/fields/', () => {
  it('adds an optional field that existing records hold as null', async () => {
    await createTable(tenant.owner, app, 'notes', { fields: [{ name: 'text', type: 'string' }] });
    const note = await insert(tenant.owner, app, 'notes', { text: 'hello' });
    const response = await tenant.owner.post(`${tablePath(app, 'notes')}fields/`, {
      name: 'rating',
      type: 'integer',
    });
    expect(response.status).toBe(201);
    expect(response.body.data.schema.fields.map((field: { name: string }) => field.name)).toEqual([
      'id',
      'text',
      'rating',
    ]);
    const record = await tenant.owner.get(`${dataPath(app, 'notes')}${note.id}/`);
    expect(record.body.data).toEqual({ id: note.id, text: 'hello', rating: null });
    const rated = await tenant.owner.patch(`${dataPath(app, 'notes')}${note.id}/`, { rating: 5 });
    expect(rated.body.data.rating).toBe(5);
  });

  it('adds a required field with a default, filling existing records', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'notes')}fields/`, {
      name: 'kind',
      type: 'string',
      constraints: { required: true, enum: ['memo', 'todo'] },
      default: 'memo',
    });
    expect(response.status).toBe(201);
    const list = await tenant.owner.get(dataPath(app, 'notes'));
    expect(list.body.data.every((note: { kind: string }) => note.kind === 'memo')).toBe(true);
  });

  it('returns 422 for a required field without a default when the table has records', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'notes')}fields/`, {
      name: 'owner',
      type: 'string',
      constraints: { required: true },
    });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      error: 'Table has records',
      detail: 'Table "notes" has records: a required field added to it needs a default for them.',
    });
  });

  it('returns 400 when the field exists', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'notes')}fields/`, {
      name: 'text',
      type: 'string',
    });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ name: ['Table "notes" already has a field "text".'] });
  });

  it('returns 400 naming the new field of an unknown type', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'notes')}fields/`, {
      name: 'due',
      type: 'when',
    });
    expect(response.status).toBe(400);
    expect(response.body.details.type[0]).toMatch(/^Unknown type "when" for field "due"/);
  });

  it('returns 409 for a unique field whose default would repeat in existing records', async () => {
    await insert(tenant.owner, app, 'notes', { text: 'second' });
    const response = await tenant.owner.post(`${tablePath(app, 'notes')}fields/`, {
      name: 'slug',
      type: 'string',
      constraints: { unique: true },
      default: 'same',
    });
    expect(response.status).toBe(409);
    expect(response.body.field).toBe('slug');
  });
});

describe('DELETE /api/apps/{app_slug}/datatables/{name}/fields/{field}/', () => {
  it('drops a field', async () => {
    const response = await tenant.owner.delete(`${tablePath(app, 'notes')}fields/rating/`);
    expect(response.status).toBe(200);
    expect(response.body.data.schema.fields.map((field: { name: string }) => field.name)).not.toContain(
      'rating',
    );
    const list = await tenant.owner.get(dataPath(app, 'notes'));
    expect(list.body.data[0]).not.toHaveProperty('rating');
  });

  it('returns 409 for a field an index uses', async () => {
    const response = await tenant.owner.delete(`${tablePath(app, 'books')}fields/status/`);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Field in use',
      detail: 'Field "status" cannot be dropped: an index includes it.',
    });
  });

  it('returns 404 for an unknown field', async () => {
    const response = await tenant.owner.delete(`${tablePath(app, 'notes')}fields/nothing/`);
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Field not found');
  });
});

describe('POST /api/apps/{app_slug}/datatables/{name}/indexes/', () => {
  it('adds a unique index that enables upserts on its fields', async () => {
    await createTable(tenant.owner, app, 'people', {
      fields: [
        { name: 'first', type: 'string' },
        { name: 'last', type: 'string' },
      ],
    });
    const response = await tenant.owner.post(`${tablePath(app, 'people')}indexes/`, {
      name: 'full_name',
      fields: ['first', 'last'],
      unique: true,
    });
    expect(response.status).toBe(201);
    expect(response.body.data.schema.indexes).toEqual([
      { name: 'full_name', fields: ['first', 'last'], unique: true },
    ]);
    const upsert = await tenant.owner.post(`${dataPath(app, 'people')}upsert/?unique_fields=first,last`, {
      first: 'Ada',
      last: 'Lovelace',
    });
    expect(upsert.status).toBe(201);
    const duplicate = await tenant.owner.post(dataPath(app, 'people'), { first: 'Ada', last: 'Lovelace' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.field).toBe('first,last');
  });

  it('returns 409 for a unique index over values that repeat', async () => {
    await insert(tenant.owner, app, 'people', [
      { first: 'Ann', last: 'A' },
      { first: 'Ann', last: 'B' },
    ]);
    const response = await tenant.owner.post(`${tablePath(app, 'people')}indexes/`, {
      fields: 'first',
      unique: true,
    });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ error: 'Unique constraint violation', field: 'first' });
  });

  it('returns 400 for an index on an unknown field', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'people')}indexes/`, { fields: ['middle'] });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ fields: ['Unknown field "middle" in an index.'] });
  });
});

describe('DELETE /api/apps/{app_slug}/datatables/{name}/indexes/{index}/', () => {
  it('drops an index', async () => {
    const response = await tenant.owner.delete(`${tablePath(app, 'people')}indexes/full_name/`);
    expect(response.status).toBe(200);
    expect(response.body.data.schema.indexes).toEqual([]);
    const duplicate = await tenant.owner.post(dataPath(app, 'people'), { first: 'Ada', last: 'Lovelace' });
    expect(duplicate.status).toBe(201);
  });

  it('returns 404 for an unknown index', async () => {
    const response = await tenant.owner.delete(`${tablePath(app, 'people')}indexes/full_name/`);
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Index not found');
  });
});

describe('DELETE /api/apps/{app_slug}/datatables/{name}/', () => {
  it('returns 409 while another table references it', async () => {
    await createTable(tenant.owner, app, 'leads', {
      fields: [{ name: 'owner_id', type: 'string', format: 'uuid' }],
      foreignKeys: [{ fields: 'owner_id', reference: { resource: 'owners', fields: 'id' } }],
    });
    const response = await tenant.owner.delete(tablePath(app, 'owners'));
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Table is referenced',
      detail: 'Table "owners" is referenced by "leads": drop or change those tables first.',
    });
  });

  it('drops a table and its records', async () => {
    expect((await tenant.owner.delete(tablePath(app, 'leads'))).status).toBe(204);
    const response = await tenant.owner.delete(tablePath(app, 'owners'));
    expect(response.status).toBe(204);
    expect((await tenant.owner.get(tablePath(app, 'owners'))).status).toBe(404);
    expect((await tenant.owner.get(dataPath(app, 'owners'))).status).toBe(404);
  });

  it('lets a dropped table be created again, empty', async () => {
    await createTable(tenant.owner, app, 'owners', { fields: [{ name: 'name', type: 'string' }] });
    const list = await tenant.owner.get(dataPath(app, 'owners'));
    expect(list.body.total).toBe(0);
  });
});
