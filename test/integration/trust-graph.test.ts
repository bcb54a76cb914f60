import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * The cross-tenant trust suite, graph traversal and site names (docs/security.md, "Graph traversal" and "Site
 * names"): a tenant's graph cannot stall the process that serves every tenant (each record is visited once per
 * request, and a request may visit at most DATA_SERVICE_GRAPH_MAX_RECORDS records, else a 400 naming `depth`), and
 * a site name a client sends (X-Site, or the host's site label) is a 400 when it cannot be a site's slug.
 */

const maxRecords = 1000;
const baseDomain = 'platform.test';

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
let app: string;

type TreeNode = { id: string; _depth: number; _repeated?: boolean; children: TreeNode[] };

/** Every occurrence of every node of trees, at every depth. */
function occurrences(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((node) => [node, ...occurrences(node.children)]);
}

async function edges(table: string, list: { from_id: string; to_id: string; type: string }[]) {
  for (let start = 0; start < list.length; start += 1000) {
    const response = await tenant.owner.post(
      `${tablePath(app, table)}edges/`,
      list.slice(start, start + 1000),
    );
    if (response.status !== 201) throw new Error(`edges: ${response.status} ${response.text}`);
  }
}

/** 11 layers of 4 records; each record of layers 1 to 10 points (`parent`) to every record of the layer above. */
const layers: string[][] = [];
const layerOf = new Map<string, number>();
const mesh = () => dataPath(app, 'mesh');

beforeAll(async () => {
  platform = await startTestPlatform({
    DATA_SERVICE_GRAPH_MAX_RECORDS: String(maxRecords),
    BASE_DOMAIN: baseDomain,
  });
  tenant = await createTenant(platform);
  other = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'mesh', {
    fields: [
      { name: 'layer', type: 'integer' },
      { name: 'slot', type: 'integer' },
    ],
    graph: { enabled: true, types: [{ name: 'parent', inverse: 'kids' }] },
  });
  const records = await insert(
    tenant.owner,
    app,
    'mesh',
    Array.from({ length: 44 }, (_, index) => ({ layer: Math.floor(index / 4), slot: index % 4 })),
  );
  for (const record of records as { id: string; layer: number }[]) {
    layers[record.layer] = [...(layers[record.layer] ?? []), record.id];
    layerOf.set(record.id, record.layer);
  }
  const links = [];
  for (let layer = 1; layer <= 10; layer++)
    for (const child of layers[layer] as string[])
      for (const parent of layers[layer - 1] as string[])
        links.push({ from_id: child, to_id: parent, type: 'parent' });
  expect(links).toHaveLength(160);
  await edges('mesh', links);
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

describe('cross-tenant trust suite: graph traversal', () => {
  const top = () => layers[0]?.[0] as string;

  it('visits each record of a dense graph once (about a million paths, 40 records)', async () => {
    const response = await tenant.owner.get(`${mesh()}${top()}/?include=descendants&depth=10`);
    expect(response.status).toBe(200);
    const kids = response.body.kids as { id: string; _depth: number }[];
    expect(kids).toHaveLength(40);
    expect(new Set(kids.map((kid) => kid.id)).size).toBe(40);
    for (const kid of kids) expect(kid._depth).toBe(layerOf.get(kid.id));
  }, 120_000);

  it('gives a dense tree once per edge, each record expanded once (not once per path)', async () => {
    const response = await tenant.owner.get(`${mesh()}${top()}/?format=tree&depth=10`);
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(1);
    const all = occurrences(response.body.data);
    // The root, then one occurrence per edge walked: 4 edges to the root, 16 between each pair of layers below.
    expect(all).toHaveLength(1 + 4 + 16 * 9);
    const expanded = all.filter((node) => !node._repeated);
    expect(expanded).toHaveLength(41);
    expect(new Set(expanded.map((node) => node.id)).size).toBe(41);
    for (const node of all) {
      expect(node._depth).toBe(layerOf.get(node.id));
      if (node._repeated) expect(node.children).toEqual([]);
    }
    // A record of layer 2 hangs under each of its 4 parents; its children are under the first only.
    const layer2 = all.filter((node) => node.id === layers[2]?.[0]);
    expect(layer2).toHaveLength(4);
    expect(layer2.filter((node) => node.children.length === 4)).toHaveLength(1);
  }, 120_000);

  it('gives the tree of a middle record from its natural roots, and the graph of nodes and edges walked', async () => {
    const middle = layers[5]?.[0] as string;
    const tree = await tenant.owner.get(`${mesh()}${middle}/?format=tree&depth=10`);
    expect(tree.status).toBe(200);
    expect(tree.body.total).toBe(4);
    expect(tree.body.data.map((root: TreeNode) => root.id).sort()).toEqual(
      [...(layers[0] as string[])].sort(),
    );
    expect(occurrences(tree.body.data)).toHaveLength(4 * (1 + 4 + 16 * 9));
    const graph = await tenant.owner.get(`${mesh()}${top()}/?format=graph&depth=10`);
    expect(graph.status).toBe(200);
    expect(graph.body.total).toBe(41);
    expect(graph.body.data.nodes).toHaveLength(41);
    expect(graph.body.data.edges).toHaveLength(4 + 16 * 9);
    const list = await tenant.owner.get(`${mesh()}?layer=0&format=tree&depth=10`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(4);
    expect(occurrences(list.body.data)).toHaveLength(4 * (1 + 4 + 16 * 9));
  }, 120_000);

  it(`refuses a traversal that would visit more than ${maxRecords} records with a 400 naming depth`, async () => {
    await createTable(tenant.owner, app, 'star', {
      fields: [{ name: 'n', type: 'integer' }],
      graph: { enabled: true, types: [{ name: 'hub', inverse: 'spokes' }] },
    });
    const [center] = await insert(tenant.owner, app, 'star', [{ n: 0 }]);
    const spokes = [
      ...(await insert(
        tenant.owner,
        app,
        'star',
        Array.from({ length: 1000 }, (_, n) => ({ n: n + 1 })),
      )),
      ...(await insert(tenant.owner, app, 'star', [{ n: 1001 }])),
    ];
    await edges(
      'star',
      spokes.map((spoke: { id: string }) => ({ from_id: spoke.id, to_id: center.id, type: 'hub' })),
    );
    const star = dataPath(app, 'star');
    for (const query of ['include=descendants', 'format=tree', 'format=graph', 'include=both&depth=3']) {
      const response = await tenant.owner.get(`${star}${center.id}/?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toBe('Validation failed');
      expect(response.body.details.depth[0]).toContain(`${maxRecords} records`);
    }
    const list = await tenant.owner.get(`${star}?n=0&include=descendants`);
    expect(list.status).toBe(400);
    expect(list.body.details.depth).toBeDefined();
    // Within the bound, the same record answers.
    const near = await tenant.owner.get(`${star}${center.id}/?include=descendants&depth=0`);
    expect(near.status).toBe(200);
    const spoke = await tenant.owner.get(`${star}${spokes[0].id}/?include=ancestors`);
    expect(spoke.status).toBe(200);
    expect(spoke.body.hub).toHaveLength(1);
  }, 120_000);

  it(`refuses a tree or graph that walks more than ${maxRecords} edges among fewer records, with the same 400`, async () => {
    // A root and 33 children, each child also pointing to every other child: 34 records, 33 + 33 × 32 = 1089
    // edges. The tree has 33 edges of its own, but its walk follows all 1089 (docs/graph.md, How it runs).
    await createTable(tenant.owner, app, 'clique', {
      fields: [{ name: 'n', type: 'integer' }],
      graph: { enabled: true, types: [{ name: 'parent', inverse: 'kids' }] },
    });
    const [root] = await insert(tenant.owner, app, 'clique', [{ n: 0 }]);
    const children = (await insert(
      tenant.owner,
      app,
      'clique',
      Array.from({ length: 33 }, (_, n) => ({ n: n + 1 })),
    )) as { id: string }[];
    await edges('clique', [
      ...children.map((child) => ({ from_id: child.id, to_id: root.id, type: 'parent' })),
      ...children.flatMap((child) =>
        children
          .filter((other) => other.id !== child.id)
          .map((other) => ({ from_id: child.id, to_id: other.id, type: 'parent' })),
      ),
    ]);
    const clique = dataPath(app, 'clique');
    for (const query of ['format=tree&depth=2', 'format=graph&depth=2']) {
      const response = await tenant.owner.get(`${clique}${root.id}/?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toBe('Validation failed');
      expect(response.body.details.depth).toBeDefined();
    }
    // The records alone are within the bound: include lists them.
    const kids = await tenant.owner.get(`${clique}${root.id}/?include=descendants&depth=2`);
    expect(kids.status).toBe(200);
    expect(kids.body.kids).toHaveLength(33);
  }, 120_000);

  it("answers another tenant's request during and after a heavy traversal", async () => {
    await createTable(other.owner, other.app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
    const [heavy, light] = await Promise.all([
      tenant.owner.get(`${mesh()}${top()}/?format=tree&depth=10`),
      other.owner.get(dataPath(other.app.slug, 'notes')),
    ]);
    expect(heavy.status).toBe(200);
    expect(light.status).toBe(200);
    expect((await other.owner.get(dataPath(other.app.slug, 'notes'))).status).toBe(200);
  }, 120_000);
});

/** A GET with a Host header of our choosing (fetch does not send one). */
function getWithHost(path: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(platform.baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { hostname: url.hostname, port: url.port, path, method: 'GET', headers: { host } },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('cross-tenant trust suite: site names', () => {
  const long = 'a'.repeat(2100);

  it('answers an X-Site header longer than a slug with a 400 in the group envelope, even anonymously', async () => {
    const anonymous = await platform.api.get('/api/auth/social-apps/', { headers: { 'x-site': long } });
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.detail).toContain('X-Site');
    const data = await tenant.owner.forSite(long).get(dataPath(app, 'mesh'));
    expect(data.status).toBe(400);
    expect(data.body.error).toBeDefined();
    expect(data.body.detail).toContain('X-Site');
  });

  it('answers an X-Site header that is not a slug with a 400, and keeps a well-formed unknown site a 404', async () => {
    const odd = await tenant.owner.forSite(`${tenant.site.slug}#APP#x`).get(dataPath(app, 'mesh'));
    expect(odd.status).toBe(400);
    expect(odd.body.detail).toContain('X-Site');
    const unknown = await tenant.owner.forSite('no-such-site-here').get(dataPath(app, 'mesh'));
    expect(unknown.status).toBe(404);
  });

  it('answers a site host name whose site label is too long or not a slug with a 400', async () => {
    const tooLong = await getWithHost('/api/auth/social-apps/', `${long}.${baseDomain}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.detail).toContain('host');
    const odd = await getWithHost('/api/auth/social-apps/', `a_b.${baseDomain}`);
    expect(odd.status).toBe(400);
    const site = await getWithHost('/api/auth/social-apps/', `${other.site.slug}.${baseDomain}:443`);
    expect(site.status).toBe(200);
  });
});
