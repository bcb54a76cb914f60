import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * `populate` with graph parameters (docs/graph.md): every record of the response, the start records and every
 * record the walk reached, carries its referenced records.
 */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
const ids: Record<string, string> = {};
const makers: Record<string, string> = {};

type Part = { id: string; name: string; maker: { name: string } | null; [key: string]: unknown };
type TreeNode = Part & { children: TreeNode[] };

const parts = () => dataPath(app, 'parts');
const makerOf = (records: Part[]) => records.map((record) => [record.name, record.maker?.name ?? null]);
/** Relatives of one depth are ordered by path (keys), so compare them by name. */
const byName = (pairs: unknown[][]) => [...pairs].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
const allNodes = (nodes: TreeNode[]): TreeNode[] =>
  nodes.flatMap((node) => [node, ...allNodes(node.children)]);

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'makers', { fields: [{ name: 'name', type: 'string' }] });
  await createTable(tenant.owner, app, 'parts', {
    fields: [
      { name: 'name', type: 'string' },
      { name: 'maker_id', type: 'string', format: 'uuid' },
      { name: 'parent_id', type: 'string', format: 'uuid' },
    ],
    foreignKeys: [
      { fields: 'maker_id', reference: { resource: 'makers', fields: 'id' } },
      { fields: 'parent_id', reference: { resource: 'parts', fields: 'id' } },
    ],
    graph: { enabled: true, types: [{ name: 'parent', inverse: 'kids' }] },
  });
  for (const name of ['Acme', 'Bolt'])
    makers[name] = (await insert(tenant.owner, app, 'makers', { name })).id;
  const rows = [
    { name: 'engine', maker_id: makers.Acme },
    { name: 'piston', maker_id: makers.Bolt },
    { name: 'ring', maker_id: makers.Acme },
    { name: 'valve' },
  ];
  for (const row of rows) ids[row.name] = (await insert(tenant.owner, app, 'parts', row)).id;
  const edges = [
    { from_id: ids.piston, to_id: ids.engine, type: 'parent' },
    { from_id: ids.ring, to_id: ids.piston, type: 'parent' },
    { from_id: ids.valve, to_id: ids.engine, type: 'parent' },
  ];
  const response = await tenant.owner.post(`${tablePath(app, 'parts')}edges/`, edges);
  if (response.status !== 201) throw new Error(`edges: ${response.status} ${response.text}`);
});

afterAll(async () => {
  await platform.stop();
});

describe('one record', () => {
  it('populates the record and every relative with include', async () => {
    const response = await tenant.owner.get(`${parts()}${ids.engine}/?include=descendants&populate=maker`);
    expect(response.status).toBe(200);
    expect(response.body.data.maker).toMatchObject({ id: makers.Acme, name: 'Acme' });
    expect(byName(makerOf(response.body.kids))).toEqual([
      ['piston', 'Bolt'],
      ['ring', 'Acme'],
      ['valve', null],
    ]);
    const up = await tenant.owner.get(`${parts()}${ids.ring}/?include=ancestors&populate=maker_id`);
    expect(up.body.data.maker.name).toBe('Acme');
    expect(makerOf(up.body.parent)).toEqual([
      ['piston', 'Bolt'],
      ['engine', 'Acme'],
    ]);
  });

  it('populates every node of a tree, at every depth', async () => {
    const response = await tenant.owner.get(`${parts()}${ids.ring}/?format=tree&populate=maker`);
    expect(response.status).toBe(200);
    const nodes = allNodes(response.body.data);
    expect(nodes).toHaveLength(4);
    expect(Object.fromEntries(makerOf(nodes))).toEqual({
      engine: 'Acme',
      piston: 'Bolt',
      ring: 'Acme',
      valve: null,
    });
  });

  it('populates the nodes of a graph', async () => {
    const response = await tenant.owner.get(`${parts()}${ids.engine}/?format=graph&populate=*`);
    expect(response.status).toBe(200);
    const nodes = response.body.data.nodes as Part[];
    expect(nodes).toHaveLength(4);
    expect(nodes.every((node) => 'maker' in node && 'parent' in node)).toBe(true);
  });

  it('leaves records as they are without populate', async () => {
    const response = await tenant.owner.get(`${parts()}${ids.engine}/?include=descendants`);
    expect(response.body.data.maker).toBeUndefined();
    expect(response.body.kids[0].maker).toBeUndefined();
  });

  it('refuses a relationship the table does not have, naming populate', async () => {
    const response = await tenant.owner.get(`${parts()}${ids.engine}/?include=descendants&populate=wheel`);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('populate');
  });
});

describe('the collection', () => {
  it('populates the page records and their relatives with include', async () => {
    const response = await tenant.owner.get(`${parts()}?name=engine&include=descendants&populate=maker`);
    expect(response.status).toBe(200);
    const [engine] = response.body.data as Part[];
    expect(engine?.maker?.name).toBe('Acme');
    expect(byName(makerOf(engine?.kids as Part[]))).toEqual([
      ['piston', 'Bolt'],
      ['ring', 'Acme'],
      ['valve', null],
    ]);
  });

  it('populates every node of the page trees and the graph', async () => {
    const tree = await tenant.owner.get(`${parts()}?format=tree&populate=maker`);
    expect(tree.status).toBe(200);
    const nodes = allNodes(tree.body.data);
    expect(nodes).toHaveLength(4);
    expect(nodes.find((node) => node.name === 'ring')?.maker?.name).toBe('Acme');
    const graph = await tenant.owner.get(`${parts()}?format=graph&populate=maker`);
    expect(graph.status).toBe(200);
    expect(Object.fromEntries(makerOf(graph.body.data.nodes))).toEqual({
      engine: 'Acme',
      piston: 'Bolt',
      ring: 'Acme',
      valve: null,
    });
  });

  it('refuses a relationship whose name is also the key of the relatives it would replace', async () => {
    // `parent_id` is populated as `parent`; on a list, `include=ancestors` puts the `parent` relatives there.
    const response = await tenant.owner.get(`${parts()}?include=ancestors&populate=parent`);
    expect(response.status).toBe(400);
    expect(response.body.populate?.[0] ?? JSON.stringify(response.body)).toContain('parent');
  });
});
