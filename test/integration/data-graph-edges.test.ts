import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert, tablePath, tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** Relationship types in the table schema, the edge table, and the edge endpoints (docs/graph.md). */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;

const orgChart = {
  fields: [
    { name: 'name', type: 'string', constraints: { required: true } },
    { name: 'is_deleted', type: 'boolean' },
  ],
  graph: {
    enabled: true,
    types: [
      { name: 'manager', inverse: 'direct_reports', constraints: { max_outgoing: 1 } },
      { name: 'mentor', inverse: 'mentees', constraints: { max_incoming: 2 } },
    ],
  },
};

beforeAll(async () => {
  // Several connections, so that on PostgreSQL the parallel inserts below really run side by side.
  platform = await startTestPlatform({ DATABASE_POOL_SIZE: '8' });
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'staff', orgChart);
});
afterAll(async () => {
  await platform.stop();
});

const edges = (table = 'staff') => `${tablePath(app, table)}edges/`;

async function people(count: number, table = 'staff'): Promise<string[]> {
  const rows = await insert(
    tenant.owner,
    app,
    table,
    Array.from({ length: count }, (_, index) => ({ name: `person ${index}` })),
  );
  return rows.map((row: { id: string }) => row.id);
}

describe('relationship types in the table schema', () => {
  it.each([
    [
      'a duplicate type name',
      [{ name: 'parent' }, { name: 'parent', inverse: 'kids' }],
      'graph.types.1.name',
    ],
    ['an inverse equal to a field name', [{ name: 'parent', inverse: 'title' }], 'graph.types.0.inverse'],
    ['a name equal to a field name', [{ name: 'title', inverse: 'kids' }], 'graph.types.0.name'],
    ['an inverse equal to another name', [{ name: 'a', inverse: 'b' }, { name: 'b' }], 'graph.types.1.name'],
    ['a name of 51 characters', [{ name: 'x'.repeat(51) }], 'schema.graph.types.0.name'],
    ['the label data', [{ name: 'data' }], 'graph.types.0.name'],
  ])('refuses %s (400 naming the type)', async (_, types, key) => {
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'refused',
      schema: { fields: [{ name: 'title', type: 'string' }], graph: { enabled: true, types } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
    expect(Object.keys(response.body.details).some((path) => path.endsWith(key))).toBe(true);
  });

  it('accepts a type name of 50 characters', async () => {
    const name = 'x'.repeat(50);
    const response = await tenant.owner.post(tablesPath(app), {
      name: 'long_types',
      schema: { fields: [{ name: 'title', type: 'string' }], graph: { enabled: true, types: [{ name }] } },
    });
    expect(response.status).toBe(201);
  });

  it('refuses a field added later that takes a relationship label', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'staff')}fields/`, {
      name: 'direct_reports',
      type: 'string',
    });
    expect(response.status).toBe(400);
  });
});

describe('the edge table', () => {
  it('is created with the table: columns, cascading foreign keys and the three indexes', async () => {
    const sql = platform.deps.sql();
    const [table] = await sql`SELECT n.nspname AS schema, c.relname AS name FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname LIKE ${`a${tenant.app.id}_staff_edges`}`;
    expect(table).toBeDefined();
    const columns = await sql`SELECT column_name, data_type, is_nullable FROM information_schema.columns
      WHERE table_schema = ${table?.schema} AND table_name = ${table?.name} ORDER BY ordinal_position`;
    expect(columns.map((column) => [column.column_name, column.data_type])).toEqual([
      ['id', 'uuid'],
      ['from_id', 'uuid'],
      ['to_id', 'uuid'],
      ['type', 'text'],
      ['metadata', 'jsonb'],
      ['created_at', 'timestamp with time zone'],
    ]);
    const keys = await sql`SELECT confdeltype FROM pg_constraint
      WHERE conrelid = ${`"${table?.schema}"."${table?.name}"`}::regclass AND contype = 'f'`;
    expect(keys.map((key) => key.confdeltype)).toEqual(['c', 'c']);
    const indexes = await sql`SELECT indexdef FROM pg_indexes
      WHERE schemaname = ${table?.schema} AND tablename = ${table?.name} ORDER BY indexname`;
    const defs = indexes.map((index) => String(index.indexdef).replace(/^.* USING btree /, ''));
    expect(defs.sort()).toEqual(['(from_id, type)', '(id)', '(to_id, type)', '(type)']);
  });

  it('is created when the graph is enabled later, and dropped with the table', async () => {
    await createTable(tenant.owner, app, 'later', { fields: [{ name: 'title', type: 'string' }] });
    const [a, b] = (await insert(tenant.owner, app, 'later', [{ title: 'a' }, { title: 'b' }])).map(
      (row: { id: string }) => row.id,
    );
    const before = await tenant.owner.post(edges('later'), { from_id: a, to_id: b, type: 'parent' });
    expect(before.status).toBe(422);
    expect(before.body.error).toBe('Graph not enabled');
    const enabled = await tenant.owner.patch(tablePath(app, 'later'), {
      graph: { enabled: true, types: [{ name: 'parent', inverse: 'kids' }] },
    });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.schema.graph.types[0].name).toBe('parent');
    const edge = await tenant.owner.post(edges('later'), { from_id: a, to_id: b, type: 'parent' });
    expect(edge.status).toBe(201);
    const removeType = await tenant.owner.patch(tablePath(app, 'later'), {
      graph: { enabled: true, types: [] },
    });
    expect(removeType.status).toBe(409);
    expect((await tenant.owner.delete(tablePath(app, 'later'))).status).toBe(204);
  });
});

describe('creating edges', () => {
  it('creates one edge: 201 {data: edge}', async () => {
    const [a, b] = await people(2);
    const response = await tenant.owner.post(edges(), {
      from_id: a,
      to_id: b,
      type: 'manager',
      metadata: { since: 2020 },
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      from_id: a,
      to_id: b,
      type: 'manager',
      metadata: { since: 2020 },
    });
    expect(response.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(response.body.data.created_at)).not.toBeNaN();
  });

  it('creates an array all or nothing', async () => {
    const [a, b, c] = await people(3);
    const refused = await tenant.owner.post(edges(), [
      { from_id: a, to_id: c, type: 'manager' },
      { from_id: b, to_id: c, type: 'unknown' },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.details['1.type']).toBeDefined();
    expect((await tenant.owner.get(`${edges()}?to_id=${c}`)).body.total).toBe(0);
    const made = await tenant.owner.post(edges(), [
      { from_id: a, to_id: c, type: 'manager' },
      { from_id: b, to_id: c, type: 'manager' },
    ]);
    expect(made.status).toBe(201);
    expect(made.body.data).toHaveLength(2);
    expect((await tenant.owner.get(`${edges()}?to_id=${c}`)).body.total).toBe(2);
  });

  it('refuses an undeclared type, a missing endpoint and a self-loop (400 naming the field)', async () => {
    const [a] = await people(1);
    const missing = '00000000-0000-4000-8000-000000000000';
    const type = await tenant.owner.post(edges(), { from_id: a, to_id: a, type: 'friend' });
    expect(type.status).toBe(400);
    expect(type.body.details.type).toBeDefined();
    const absent = await tenant.owner.post(edges(), { from_id: a, to_id: missing, type: 'manager' });
    expect(absent.status).toBe(400);
    expect(absent.body.details.to_id[0]).toContain(missing);
    const loop = await tenant.owner.post(edges(), { from_id: a, to_id: a, type: 'manager' });
    expect(loop.status).toBe(400);
    expect(loop.body.details.to_id).toEqual(['An edge cannot connect a record to itself.']);
    const notKey = await tenant.owner.post(edges(), { from_id: 'nope', to_id: a, type: 'manager' });
    expect(notKey.status).toBe(400);
    expect(notKey.body.details.from_id).toBeDefined();
  });

  it('refuses an edge to a soft-deleted record', async () => {
    const [a, b] = await people(2);
    await tenant.owner.delete(`${dataPath(app, 'staff')}${b}/`);
    const response = await tenant.owner.post(edges(), { from_id: a, to_id: b, type: 'manager' });
    expect(response.status).toBe(400);
  });

  it('refuses a duplicate edge (409)', async () => {
    const [a, b] = await people(2);
    expect((await tenant.owner.post(edges(), { from_id: a, to_id: b, type: 'mentor' })).status).toBe(201);
    const again = await tenant.owner.post(edges(), { from_id: a, to_id: b, type: 'mentor' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Edge exists');
  });

  it('enforces max_outgoing and max_incoming (422)', async () => {
    const [a, b, c, d, e] = await people(5);
    expect((await tenant.owner.post(edges(), { from_id: a, to_id: b, type: 'manager' })).status).toBe(201);
    const second = await tenant.owner.post(edges(), { from_id: a, to_id: c, type: 'manager' });
    expect(second.status).toBe(422);
    expect(second.body.error).toBe('Relationship limit reached');
    expect(second.body.detail).toContain('max_outgoing');
    const mentees = await tenant.owner.post(edges(), [
      { from_id: b, to_id: a, type: 'mentor' },
      { from_id: c, to_id: a, type: 'mentor' },
      { from_id: d, to_id: a, type: 'mentor' },
    ]);
    expect(mentees.status).toBe(422);
    expect(mentees.body.detail).toContain('max_incoming');
    expect((await tenant.owner.get(`${edges()}?to_id=${a}`)).body.total).toBe(0);
    expect((await tenant.owner.post(edges(), { from_id: e, to_id: a, type: 'mentor' })).status).toBe(201);
  });

  it('holds max_outgoing: 1 and max_incoming: 2 under parallel inserts', async () => {
    // Rounds of parallel requests, each a new record reaching for many parents at once (and many mentees).
    for (let round = 0; round < 5; round++) {
      const [child, ...parents] = await people(13);
      const responses = await Promise.all([
        ...parents.map((parent) =>
          tenant.owner.post(edges(), { from_id: child, to_id: parent, type: 'manager' }),
        ),
        ...parents.map((parent) =>
          tenant.owner.post(edges(), { from_id: parent, to_id: child, type: 'mentor' }),
        ),
      ]);
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(3);
      expect(statuses.filter((status) => status !== 201).every((status) => status === 422)).toBe(true);
      expect((await tenant.owner.get(`${edges()}?from_id=${child}&type=manager`)).body.total).toBe(1);
      expect((await tenant.owner.get(`${edges()}?to_id=${child}&type=mentor`)).body.total).toBe(2);
    }
  });
});

describe('listing, changing and deleting edges', () => {
  it('lists with page and page_size, oldest first', async () => {
    const [hub, ...spokes] = await people(5);
    await tenant.owner.post(
      edges(),
      spokes.map((spoke) => ({ from_id: spoke, to_id: hub, type: 'manager' })),
    );
    const page = await tenant.owner.get(`${edges()}?to_id=${hub}&page=2&page_size=3`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 4, page: 2, page_size: 3 });
    expect(page.body.data).toHaveLength(1);
  });

  it('replaces an edge with PATCH, under the same checks', async () => {
    const [a, b, c] = await people(3);
    const made = await tenant.owner.post(edges(), { from_id: a, to_id: b, type: 'manager' });
    const id = made.body.data.id;
    // Replacing the only manager edge of `a` is not a second one.
    const moved = await tenant.owner.patch(`${edges()}${id}/`, {
      from_id: a,
      to_id: c,
      type: 'manager',
      metadata: { note: 'moved' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ id, from_id: a, to_id: c, metadata: { note: 'moved' } });
    const loop = await tenant.owner.patch(`${edges()}${id}/`, { from_id: a, to_id: a, type: 'manager' });
    expect(loop.status).toBe(400);
    const missing = await tenant.owner.patch(`${edges()}00000000-0000-4000-8000-000000000000/`, {
      from_id: a,
      to_id: b,
      type: 'manager',
    });
    expect(missing.status).toBe(404);
    expect(
      (await tenant.owner.patch(`${edges()}not-a-uuid/`, { from_id: a, to_id: b, type: 'manager' })).status,
    ).toBe(404);
  });

  it('deletes by ids or by from_id/to_id/type; an empty selection is 400', async () => {
    const [a, b, c] = await people(3);
    const made = await tenant.owner.post(edges(), [
      { from_id: a, to_id: b, type: 'mentor' },
      { from_id: c, to_id: b, type: 'mentor' },
    ]);
    const [first] = made.body.data;
    const byId = await tenant.owner.delete(`${edges()}?ids=${first.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ deleted: 1, ids: [first.id] });
    const byNode = await tenant.owner.delete(`${edges()}?to_id=${b}&type=mentor`);
    expect(byNode.body.deleted).toBe(1);
    expect((await tenant.owner.delete(edges())).status).toBe(400);
    expect((await tenant.owner.delete(`${edges()}?ids=nope`)).status).toBe(400);
  });

  it('deletes the edges of a record that is deleted for good (ON DELETE CASCADE)', async () => {
    const [a, b] = await people(2);
    await tenant.owner.post(edges(), { from_id: a, to_id: b, type: 'manager' });
    expect((await tenant.owner.delete(`${dataPath(app, 'staff')}${b}/?hard_delete=true`)).status).toBe(204);
    expect((await tenant.owner.get(`${edges()}?from_id=${a}`)).body.total).toBe(0);
  });

  it('answers 422 on a table without a graph', async () => {
    await createTable(tenant.owner, app, 'flat', { fields: [{ name: 'title', type: 'string' }] });
    const response = await tenant.owner.get(edges('flat'));
    expect(response.status).toBe(422);
  });
});
