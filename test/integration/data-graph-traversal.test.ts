import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphOf } from '../../shared/data/graph/edges';
import { includeOfRecordText, traversal, treeOfRecord } from '../../shared/data/graph/traversal';
import { whereClause } from '../../shared/data/query/conditions';
import { keyCondition } from '../../shared/data/records/statements';
import { siteSchemaName } from '../../shared/data/schema/names';
import { openTable } from '../../shared/data/tables/data-table';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * Graph traversal (doc 3, Graph query parameters; docs/graph.md): the org chart and the category tree of the
 * spec's use cases, through HTTP.
 */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
const ids: Record<string, string> = {};

type Related = {
  id: string | number;
  name?: string;
  title?: string;
  _depth: number;
  _relationship_type: string;
};
type TreeNode = {
  name?: string;
  title?: string;
  _depth: number;
  _relationship_type?: string;
  children: TreeNode[];
};

const staff = () => dataPath(app, 'staff');
const categories = () => dataPath(app, 'categories');
const names = (records: Related[]) => records.map((record) => [record.name ?? record.title, record._depth]);

async function edge(
  table: string,
  from: string | number,
  to: string | number,
  type: string,
  metadata?: object,
) {
  const response = await tenant.owner.post(`${tablePath(app, table)}edges/`, {
    from_id: from,
    to_id: to,
    type,
    metadata,
  });
  if (response.status !== 201) throw new Error(`edge: ${response.status} ${response.text}`);
}

/** A tree as nested names with the relationship type of each child, siblings by name: compact to compare. */
function shape(node: TreeNode): unknown {
  const label = `${node.name ?? node.title}@${node._depth}${node._relationship_type ? `:${node._relationship_type}` : ''}`;
  const children = [...node.children].sort((a, b) =>
    String(a.name ?? a.title).localeCompare(String(b.name ?? b.title)),
  );
  return node.children.length === 0 ? label : { [label]: children.map(shape) };
}

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'staff', {
    fields: [
      { name: 'name', type: 'string', constraints: { required: true } },
      { name: 'is_deleted', type: 'boolean' },
    ],
    graph: {
      enabled: true,
      types: [
        { name: 'manager', inverse: 'direct_reports', constraints: { max_outgoing: 1 } },
        { name: 'dotted_line', inverse: 'dotted_reports' },
      ],
    },
  });
  const people = ['Ada', 'Cy', 'Fay', 'Dev', 'Dot', 'Ivy'];
  const rows = await insert(
    tenant.owner,
    app,
    'staff',
    people.map((name) => ({ name })),
  );
  rows.forEach((row: { id: string; name: string }) => {
    ids[row.name] = row.id;
  });
  // Ada is the CEO; Cy (CTO) and Fay (CFO) report to her; Dev and Dot to Cy; Ivy (intern) to Dev.
  // Dot also has a dotted line to Fay: two managers, of two types.
  for (const [from, to] of [
    ['Cy', 'Ada'],
    ['Fay', 'Ada'],
    ['Dev', 'Cy'],
    ['Dot', 'Cy'],
    ['Ivy', 'Dev'],
  ] as const)
    await edge('staff', ids[from] as string, ids[to] as string, 'manager', { since: 2020 });
  await edge('staff', ids.Dot as string, ids.Fay as string, 'dotted_line');

  await createTable(tenant.owner, app, 'categories', {
    fields: [
      { name: 'id', type: 'integer' },
      { name: 'title', type: 'string' },
    ],
    hierarchy: true,
    graph: {
      enabled: true,
      types: [{ name: 'parent', inverse: 'subcategories', constraints: { max_outgoing: 1 } }],
    },
  });
  await insert(tenant.owner, app, 'categories', [
    { id: 1, title: 'Electronics' },
    { id: 2, title: 'Computers' },
    { id: 3, title: 'Laptops' },
    { id: 4, title: 'Phones' },
    { id: 5, title: 'Books' },
  ]);
  await edge('categories', 2, 1, 'parent');
  await edge('categories', 3, 2, 'parent');
  await edge('categories', 4, 1, 'parent');
});
afterAll(async () => {
  await platform.stop();
});

describe('org chart: include', () => {
  it('descendants follow incoming edges, under the inverse label, with _depth and _relationship_type', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Ada}/?include=descendants`);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: ids.Ada, name: 'Ada' });
    expect(names(response.body.direct_reports).sort(byDepthThenName)).toEqual([
      ['Cy', 1],
      ['Fay', 1],
      ['Dev', 2],
      ['Dot', 2],
      ['Ivy', 3],
    ]);
    expect(response.body.direct_reports.every((r: Related) => r._relationship_type === 'manager')).toBe(true);
    // Each type is walked on its own: no dotted_line edge points to Ada.
    expect(names(response.body.dotted_reports)).toEqual([]);
    const fay = await tenant.owner.get(`${staff()}${ids.Fay}/?include=descendants`);
    expect(names(fay.body.dotted_reports)).toEqual([['Dot', 1]]);
    expect(fay.body.dotted_reports[0]._relationship_type).toBe('dotted_line');
  });

  it('ancestors follow outgoing edges under the type name, closest first', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Ivy}/?include=ancestors`);
    expect(response.status).toBe(200);
    expect(names(response.body.manager)).toEqual([
      ['Dev', 1],
      ['Cy', 2],
      ['Ada', 3],
    ]);
    expect(response.body.dotted_line).toEqual([]);
  });

  it('a record with two managers of two types shows each under its type', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Dot}/?include=ancestors`);
    expect(names(response.body.manager)).toEqual([
      ['Cy', 1],
      ['Ada', 2],
    ]);
    expect(names(response.body.dotted_line)).toEqual([['Fay', 1]]);
  });

  it('both gives descendants and ancestors', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Cy}/?include=both&relationship_type=manager`);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'direct_reports', 'manager']);
    expect(names(response.body.direct_reports).sort(byDepthThenName)).toEqual([
      ['Dev', 1],
      ['Dot', 1],
      ['Ivy', 2],
    ]);
    expect(names(response.body.manager)).toEqual([['Ada', 1]]);
  });

  it('depth bounds the walk; depth=0 walks nothing', async () => {
    const one = await tenant.owner.get(`${staff()}${ids.Ada}/?include=descendants&depth=1`);
    expect(names(one.body.direct_reports).sort(byDepthThenName)).toEqual([
      ['Cy', 1],
      ['Fay', 1],
    ]);
    const none = await tenant.owner.get(`${staff()}${ids.Ada}/?include=descendants&depth=0`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ data: one.body.data, direct_reports: [], dotted_reports: [] });
  });

  it('refuses a depth over the maximum with {error, detail}', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Ada}/?include=descendants&depth=11`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      detail: 'depth exceeds maximum allowed (10)',
    });
    const list = await tenant.owner.get(`${staff()}?format=tree&depth=50`);
    expect(list.status).toBe(400);
    expect(list.body.detail).toBe('depth exceeds maximum allowed (10)');
    // Refused also without include or format, rather than silently ignored.
    expect((await tenant.owner.get(`${staff()}${ids.Ada}/?depth=11`)).status).toBe(400);
  });

  it('selects types with relationship_type (repeatable) and the graph_types alias; unknown types are 400', async () => {
    const one = await tenant.owner.get(
      `${staff()}${ids.Fay}/?include=descendants&relationship_type=dotted_line`,
    );
    expect(Object.keys(one.body).sort()).toEqual(['data', 'dotted_reports']);
    const both = await tenant.owner.get(
      `${staff()}${ids.Fay}/?include=descendants&relationship_type=dotted_line&relationship_type=manager`,
    );
    expect(Object.keys(both.body).sort()).toEqual(['data', 'direct_reports', 'dotted_reports']);
    const alias = await tenant.owner.get(`${staff()}${ids.Fay}/?include=descendants&graph_types=dotted_line`);
    expect(alias.body).toEqual(one.body);
    const unknown = await tenant.owner.get(
      `${staff()}${ids.Fay}/?include=descendants&relationship_type=friend`,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.relationship_type).toBeDefined();
  });

  it('404 for a missing record, 400 for graph parameters on a table without a graph', async () => {
    const missing = await tenant.owner.get(`${staff()}00000000-0000-4000-8000-000000000000/?include=both`);
    expect(missing.status).toBe(404);
    // A tree's rows are read as arrays: its one empty row is read by position too.
    for (const query of ['format=tree', 'format=tree&depth=0']) {
      const tree = await tenant.owner.get(`${staff()}00000000-0000-4000-8000-000000000000/?${query}`);
      expect(tree.status).toBe(404);
    }
    await createTable(tenant.owner, app, 'plain', { fields: [{ name: 'title', type: 'string' }] });
    const [plain] = await insert(tenant.owner, app, 'plain', [{ title: 'x' }]);
    const response = await tenant.owner.get(`${dataPath(app, 'plain')}${plain.id}/?include=descendants`);
    expect(response.status).toBe(400);
    expect(response.body.details.include).toBeDefined();
  });
});

function byDepthThenName(a: unknown[], b: unknown[]): number {
  return Number(a[1]) - Number(b[1]) || String(a[0]).localeCompare(String(b[0]));
}

describe('org chart: tree and graph', () => {
  it('format=tree of the root starts there; children carry _depth and _relationship_type', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Ada}/?format=tree&relationship_type=manager`);
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(1);
    const [root] = response.body.data;
    expect(root._depth).toBe(0);
    expect(root).not.toHaveProperty('_relationship_type');
    expect(shape(root)).toEqual({
      'Ada@0': [
        { 'Cy@1:manager': [{ 'Dev@2:manager': ['Ivy@3:manager'] }, 'Dot@2:manager'] },
        'Fay@1:manager',
      ],
    });
    const leaf = (root as TreeNode).children.find((child) => child.name === 'Fay') as TreeNode;
    expect(leaf.children).toEqual([]);
  });

  it('format=tree of a child returns the tree from its natural root', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Ivy}/?format=tree&relationship_type=manager`);
    expect(response.body.total).toBe(1);
    expect(response.body.data[0].name).toBe('Ada');
    expect(response.body.data[0].children).toHaveLength(2);
  });

  it('with several types, a record appears under each parent that reaches it', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Ada}/?format=tree`);
    expect(shape(response.body.data[0])).toEqual({
      'Ada@0': [
        { 'Cy@1:manager': [{ 'Dev@2:manager': ['Ivy@3:manager'] }, 'Dot@2:manager'] },
        { 'Fay@1:manager': ['Dot@2:dotted_line'] },
      ],
    });
  });

  it('format=graph gives the nodes and the edges walked', async () => {
    const response = await tenant.owner.get(`${staff()}${ids.Cy}/?format=graph&include=descendants`);
    expect(response.status).toBe(200);
    const { nodes, edges } = response.body.data;
    expect(nodes.map((node: { name: string }) => node.name).sort()).toEqual(['Cy', 'Dev', 'Dot', 'Ivy']);
    expect(response.body.total).toBe(4);
    expect(edges).toHaveLength(3);
    expect(edges).toContainEqual({
      id: expect.any(String),
      from: ids.Ivy,
      to: ids.Dev,
      type: 'manager',
      metadata: { since: 2020 },
    });
  });

  it('lists with include: each record of the page carries its relatives, filters choose the page', async () => {
    const response = await tenant.owner.get(
      `${staff()}?name=Cy&include=descendants&relationship_type=manager`,
    );
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(1);
    expect(names(response.body.data[0].direct_reports).sort(byDepthThenName)).toEqual([
      ['Dev', 1],
      ['Dot', 1],
      ['Ivy', 2],
    ]);
  });

  it('lists as a tree from the natural roots among the matching records', async () => {
    const response = await tenant.owner.get(`${staff()}?format=tree&relationship_type=manager`);
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(1);
    expect(response.body.data.map((node: TreeNode) => node.name)).toEqual(['Ada']);
    const graph = await tenant.owner.get(`${staff()}?format=graph&name=Fay`);
    expect(graph.body.data.nodes.map((node: { name: string }) => node.name).sort()).toEqual(['Dot', 'Fay']);
  });
});

describe('cycles and soft delete', () => {
  it('never loops on circular edges', async () => {
    await createTable(tenant.owner, app, 'ring', {
      fields: [{ name: 'name', type: 'string' }],
      graph: { enabled: true, types: [{ name: 'next', inverse: 'previous' }] },
    });
    const [a, b, c] = await insert(tenant.owner, app, 'ring', [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    await edge('ring', a.id, b.id, 'next');
    await edge('ring', b.id, c.id, 'next');
    await edge('ring', c.id, a.id, 'next');
    const ring = dataPath(app, 'ring');
    const down = await tenant.owner.get(`${ring}${a.id}/?include=both`);
    expect(down.status).toBe(200);
    expect(names(down.body.previous)).toEqual([
      ['c', 1],
      ['b', 2],
    ]);
    expect(names(down.body.next)).toEqual([
      ['b', 1],
      ['c', 2],
    ]);
    const tree = await tenant.owner.get(`${ring}${b.id}/?format=tree`);
    expect(tree.status).toBe(200);
    expect(tree.body.total).toBe(1);
    const list = await tenant.owner.get(`${ring}?format=graph`);
    expect(list.body.data.edges).toHaveLength(3);
  });

  it('does not walk through soft-deleted records unless include_deleted=true', async () => {
    expect((await tenant.owner.delete(`${staff()}${ids.Dev}/`)).status).toBe(204);
    const live = await tenant.owner.get(`${staff()}${ids.Cy}/?include=descendants&relationship_type=manager`);
    expect(names(live.body.direct_reports)).toEqual([['Dot', 1]]);
    const all = await tenant.owner.get(
      `${staff()}${ids.Cy}/?include=descendants&relationship_type=manager&include_deleted=true`,
    );
    expect(names(all.body.direct_reports).sort(byDepthThenName)).toEqual([
      ['Dev', 1],
      ['Dot', 1],
      ['Ivy', 2],
    ]);
    await tenant.owner.patch(`${staff()}${ids.Dev}/?include_deleted=true`, { is_deleted: false });
  });
});

describe('category tree (integer keys, hierarchy)', () => {
  it('lists the tree from every root', async () => {
    const response = await tenant.owner.get(`${categories()}?format=tree`);
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(2);
    expect(response.body.data.map(shape)).toEqual([
      { 'Electronics@0': [{ 'Computers@1:parent': ['Laptops@2:parent'] }, 'Phones@1:parent'] },
      'Books@0',
    ]);
  });

  it('gives ancestors of a leaf, closest first, and the tree from its root', async () => {
    const up = await tenant.owner.get(`${categories()}3/?include=ancestors`);
    expect(names(up.body.parent)).toEqual([
      ['Computers', 1],
      ['Electronics', 2],
    ]);
    expect(up.body.parent[0].id).toBe(2);
    const tree = await tenant.owner.get(`${categories()}3/?format=tree`);
    expect(tree.body.data[0].title).toBe('Electronics');
    const graph = await tenant.owner.get(`${categories()}1/?format=graph`);
    expect(graph.body.data.edges).toContainEqual(expect.objectContaining({ from: 3, to: 2, type: 'parent' }));
  });

  it('keeps one parent per category (max_outgoing: 1)', async () => {
    const response = await tenant.owner.post(`${tablePath(app, 'categories')}edges/`, {
      from_id: 3,
      to_id: 4,
      type: 'parent',
    });
    expect(response.status).toBe(422);
  });
});

describe('the statement', () => {
  /** The test app's tables are read here directly (the plan is the point, not the API): the scope of its site. */
  function appScope() {
    const schema = siteSchemaName(tenant.site.slug);
    return {
      schema,
      site: tenant.site.slug,
      siteIdentity: (tenant.site as { created_at?: string }).created_at ?? '',
      app: { description: '', site: '', created_at: '', ...tenant.app },
    };
  }

  /** A new graph table of the test app with an integer `n`, opened with its node and edge tables' names. */
  async function wideTable(name: string) {
    await createTable(tenant.owner, app, name, {
      fields: [{ name: 'n', type: 'integer' }],
      graph: { enabled: true, types: [{ name: 'parent', inverse: 'kids' }] },
    });
    const sql = platform.deps.sql();
    const { schema } = appScope();
    const table = await openTable(sql, appScope(), name);
    return {
      sql,
      table,
      graph: graphOf(sql, table),
      nodes: sql`${sql(schema)}.${sql(table.physical)}`,
      edges: sql`${sql(schema)}.${sql(table.entry.layout.edges as string)}`,
    };
  }

  it('is one recursive query that walks the edge index, whatever the number of records', async () => {
    const { sql, table, nodes, edges } = await wideTable('big');
    // A binary tree of 20,000 records, written directly: the plan is the point here, not the API.
    await sql`INSERT INTO ${nodes} (n) SELECT g FROM generate_series(1, 20000) AS g`;
    await sql`INSERT INTO ${edges} (from_id, to_id, type)
      SELECT c.id, p.id, 'parent' FROM ${nodes} c JOIN ${nodes} p ON p.n = c.n / 2 WHERE c.n > 1`;
    await sql`ANALYZE ${nodes}`;
    await sql`ANALYZE ${edges}`;
    const [root] = await sql`SELECT id FROM ${nodes} WHERE n = 2`;
    const statement = traversal(
      sql,
      graphOf(sql, table),
      [
        {
          name: 'down',
          direction: 'down',
          start: sql`n.id = ${root?.id as string}`,
          types: ['parent'],
          depth: 10,
          typed: true,
          deleted: false,
        },
      ],
      'include',
      10_000,
    );
    const plan = (await sql`EXPLAIN ${statement}`).map((row) => row['QUERY PLAN'] as string).join('\n');
    expect(plan).toContain('Recursive Union');
    expect(plan).toContain('_to_id_type_idx');
    const rows = await sql`${statement}`;
    // Depth 10 below record 2 of a binary tree: 2 + 4 + ... + 1024 descendants, and the record itself.
    expect(rows).toHaveLength(2 ** 11 - 1);
    expect(rows.every((row) => row['graph:over'] === false)).toBe(true);
  });

  /** The rows the recursive walk produced (its Recursive Union node), read from EXPLAIN ANALYZE: the walk's work. */
  async function walkedRows(statement: unknown): Promise<number> {
    const sql = platform.deps.sql();
    const [row] = await sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement as never}`;
    type Plan = { 'Node Type': string; 'Actual Rows': number; Plans?: Plan[] };
    const find = (plan: Plan): Plan | undefined =>
      plan['Node Type'] === 'Recursive Union' ? plan : (plan.Plans ?? []).map(find).find(Boolean);
    const [explained] = (row?.['QUERY PLAN'] ?? []) as { Plan: Plan }[];
    return (find((explained as { Plan: Plan }).Plan) as Plan)['Actual Rows'];
  }

  it('reads include from one record with a text kept per table and shape, the same rows as the fragments', async () => {
    const sql = platform.deps.sql();
    const scope = appScope();
    const cases = [
      { name: 'staff', keys: [ids.Ada, ids.Dot, ids.Ivy], types: ['manager', 'dotted_line'] },
      { name: 'categories', keys: [1, 3, 5], types: ['parent'] },
    ];
    const sorted = (rows: readonly object[]) => rows.map((row) => JSON.stringify(row)).sort();
    let compared = 0;
    for (const { name, keys, types } of cases) {
      const table = await openTable(sql, scope, name);
      const graph = graphOf(sql, table);
      for (const key of keys)
        for (const directions of [['down'], ['up'], ['down', 'up']] as const)
          for (const visibility of ['live', 'all', 'deleted'] as const)
            for (const depth of [0, 1, 10]) {
              const deleted = visibility !== 'live';
              const start = whereClause(sql, table, { conditions: [keyCondition(table, key)], visibility });
              const walks = directions.map((direction) => ({
                name: direction,
                direction,
                start,
                types,
                depth,
                typed: true,
                deleted,
              }));
              const expected = await sql`${traversal(sql, graph, walks, 'include', 10_000)}`;
              const text = includeOfRecordText(table, {
                directions,
                depth,
                deleted,
                visibility,
                cap: 10_000,
              });
              expect(
                includeOfRecordText(table, { directions, depth, deleted, visibility, cap: 10_000 }),
              ).toBe(text);
              const actual = await sql.unsafe(text, [
                table.entry.id,
                key,
                types,
                table.entry.updated_at,
              ] as never[]);
              // The statement orders by kind, depth and key: the start record's rows (one per type) tie.
              expect(sorted(actual)).toEqual(sorted(expected));
              if (expected.some((row) => Number(row['graph:depth']) > 0)) compared++;
            }
    }
    // Beyond the cap, both say so in one row.
    const table = await openTable(sql, scope, 'staff');
    const start = whereClause(sql, table, { conditions: [keyCondition(table, ids.Ada)], visibility: 'live' });
    const walk = {
      name: 'down',
      direction: 'down' as const,
      start,
      types: ['manager'],
      depth: 10,
      typed: true,
      deleted: false,
    };
    const expected = await sql`${traversal(sql, graphOf(sql, table), [walk], 'include', 2)}`;
    const shape = {
      directions: ['down'] as const,
      depth: 10,
      deleted: false,
      visibility: 'live' as const,
      cap: 2,
    };
    const actual = await sql.unsafe(includeOfRecordText(table, shape), [
      table.entry.id,
      ids.Ada,
      ['manager'],
      table.entry.updated_at,
    ] as never[]);
    expect(expected).toHaveLength(1);
    expect(expected[0]?.['graph:over']).toBe(true);
    expect([...actual]).toEqual([...expected]);
    expect(compared).toBeGreaterThan(10);
  });

  /** The most rows any node of the plan produced over all its loops, read from EXPLAIN ANALYZE: row counts, not time. */
  async function largestNode(statement: unknown): Promise<{ node: string; rows: number }> {
    const sql = platform.deps.sql();
    const [row] = await sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statement as never}`;
    type Plan = { 'Node Type': string; 'Actual Rows': number; 'Actual Loops': number; Plans?: Plan[] };
    const all = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(all)];
    const [explained] = (row?.['QUERY PLAN'] ?? []) as { Plan: Plan }[];
    return all((explained as { Plan: Plan }).Plan)
      .map((plan) => ({ node: plan['Node Type'], rows: plan['Actual Rows'] * plan['Actual Loops'] }))
      .reduce((most, node) => (node.rows > most.rows ? node : most));
  }

  it('builds the tree and graph of a wide tree with work in proportion to its records and edges', async () => {
    const { sql, graph, nodes, edges } = await wideTable('wide');
    // Record 0, its 60 children (1 to 60) and 60 children under each (61 to 3660): 3661 records, 3660 edges. Two
    // levels of 60 and 3600 records: joining the records of one level with each other would be 3600² rows.
    await sql`INSERT INTO ${nodes} (n) SELECT g FROM generate_series(0, 3660) AS g`;
    await sql`INSERT INTO ${edges} (from_id, to_id, type)
      SELECT c.id, p.id, 'parent' FROM ${nodes} c JOIN ${nodes} p
        ON p.n = CASE WHEN c.n <= 60 THEN 0 ELSE (c.n - 61) / 60 + 1 END WHERE c.n > 0`;
    await sql`ANALYZE ${nodes}`;
    await sql`ANALYZE ${edges}`;
    const [leaf] = await sql`SELECT id FROM ${nodes} WHERE n = 1000`;
    const [top] = await sql`SELECT id FROM ${nodes} WHERE n = 0`;
    const bound = 4 * (3661 + 3660);
    const tree = treeOfRecord(sql, graph, sql`n.id = ${leaf?.id as string}`, {
      types: ['parent'],
      depth: 10,
      maxDepth: 10,
      deleted: false,
      cap: 10_000,
    });
    const treeRows = await sql`${tree}`;
    expect(treeRows.filter((row) => row['graph:kind'] === 'node')).toHaveLength(3661);
    expect(treeRows.filter((row) => row['graph:kind'] === 'edge')).toHaveLength(3660);
    expect((await largestNode(tree)).rows).toBeLessThanOrEqual(bound);
    const walk = {
      name: 'down',
      direction: 'down' as const,
      start: sql`n.id = ${top?.id as string}`,
      types: ['parent'],
      depth: 10,
      typed: false,
      deleted: false,
    };
    const wholeGraph = traversal(sql, graph, [walk], 'graph', 10_000);
    const graphRows = await sql`${wholeGraph}`;
    expect(graphRows.filter((row) => row['graph:kind'] === 'edge')).toHaveLength(3660);
    expect((await largestNode(wholeGraph)).rows).toBeLessThanOrEqual(bound);
  });

  it('visits each record once per depth, not once per path, and stops the walk at its row limit', async () => {
    const { sql, graph, nodes, edges } = await wideTable('mesh');
    // 11 layers of 4 (n / 4 is the layer), each record pointing to every record of the layer above: 160 edges and,
    // from a record of the top layer at depth 10, 4 + 16 + ... + 4^10 (about 1.4 million) paths.
    await sql`INSERT INTO ${nodes} (n) SELECT g FROM generate_series(0, 43) AS g`;
    await sql`INSERT INTO ${edges} (from_id, to_id, type)
      SELECT c.id, p.id, 'parent' FROM ${nodes} c JOIN ${nodes} p ON p.n / 4 = c.n / 4 - 1`;
    // A star: 5000 records pointing to one.
    await sql`INSERT INTO ${nodes} (n) SELECT g FROM generate_series(1000, 6000) AS g`;
    await sql`INSERT INTO ${edges} (from_id, to_id, type)
      SELECT c.id, p.id, 'parent' FROM ${nodes} c JOIN ${nodes} p ON p.n = 1000 WHERE c.n > 1000`;
    const [top] = await sql`SELECT id FROM ${nodes} WHERE n = 0`;
    const [center] = await sql`SELECT id FROM ${nodes} WHERE n = 1000`;
    const walk = (id: unknown, depth: number, typed = true) => ({
      name: 'down',
      direction: 'down' as const,
      start: sql`n.id = ${id as string}`,
      types: ['parent'],
      depth,
      typed,
      deleted: false,
    });
    // The top record and the 40 below it, each once (each is reachable at one depth only here).
    expect(await walkedRows(traversal(sql, graph, [walk(top?.id, 10)], 'include', 10_000))).toBe(41);
    expect(await walkedRows(traversal(sql, graph, [walk(top?.id, 10, false)], 'graph', 10_000))).toBe(41);
    const dense = await sql`${traversal(sql, graph, [walk(top?.id, 10)], 'include', 10_000)}`;
    expect(dense.filter((row) => row['graph:kind'] === 'node')).toHaveLength(41);
    // With a cap of 100 at depth 1, the walk of the star stops at 100 × 2 + 1 rows of its 5001, and the statement
    // answers one row that says it is beyond the cap.
    expect(await walkedRows(traversal(sql, graph, [walk(center?.id, 1)], 'include', 100))).toBe(201);
    const over = await sql`${traversal(sql, graph, [walk(center?.id, 1)], 'include', 100)}`;
    expect(over).toHaveLength(1);
    expect(over[0]?.['graph:over']).toBe(true);
    expect(await walkedRows(traversal(sql, graph, [walk(center?.id, 1)], 'include', 10_000))).toBe(5001);
  });
});
