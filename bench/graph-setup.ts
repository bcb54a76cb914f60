import postgres from 'postgres';

/**
 * The graph scenarios' data (GR1-GR3), built through the API as a user would: a `graph_nodes` table with the types
 * `parent` (a tree: max_outgoing 1) and `link` (extra parents: a DAG), its records with bulk creates, then a forest
 * of binary trees through the edges endpoint (1000 edges a request), then the DAG's extra edges. Each tree has 1023
 * records and depth 9, so a root has ~1000 descendants within depth 10.
 */

export const graphTable = 'graph_nodes';
/** Records per tree: a complete binary tree of depth 9. */
export const treeSize = 1023;
/** Every fifth record of a tree also gets a `link` edge to its parent's sibling: a second parent. */
const linkEvery = 5;
const batch = 1000;
const concurrency = 2;

export interface Rate {
  edges: number;
  seconds: number;
  edgesPerSecond: number;
}

export interface GraphFixture {
  readonly physical: string;
  readonly edgesPhysical: string;
  readonly roots: readonly string[];
  readonly leaves: readonly string[];
  readonly nodes: readonly string[];
  readonly load: { nodes: number; tree: Rate; dag: Rate };
}

/** A JSON answer of the API; the bench reads the few properties it needs. */
type Json = Record<string, unknown>;
type Answer = { status: number; body: Json };
type Call = (method: string, path: string, body?: unknown) => Promise<Answer>;

function caller(baseUrl: string, headers: Record<string, string>): Call {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
}

async function expectStatus(call: Promise<Answer>, status: number, what: string): Promise<Json> {
  const response = await call;
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Sends items in batches of 1000, a few requests in flight; returns what each batch answered, in order. */
async function inBatches<T>(items: readonly T[], send: (items: T[], first: number) => Promise<unknown[]>) {
  const out: unknown[][] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const first = next;
      next = Math.min(items.length, next + batch);
      out[first / batch] = await send(items.slice(first, next), first);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out.flat();
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await work();
  return { value, seconds: (performance.now() - started) / 1000 };
}

/**
 * The edges of the forest: in each tree (a heap of `treeSize` nodes) every node but the root has a `parent`; every
 * `linkEvery`-th node below the first level also links to its parent's sibling, which makes the DAG.
 */
function graphEdges(trees: number, at: (tree: number, position: number) => string) {
  const treeEdges: object[] = [];
  const linkEdges: object[] = [];
  for (let tree = 0; tree < trees; tree++)
    for (let position = 1; position < treeSize; position++) {
      const parent = Math.floor((position - 1) / 2);
      treeEdges.push({ from_id: at(tree, position), to_id: at(tree, parent), type: 'parent' });
      const uncle = parent % 2 === 1 ? parent + 1 : parent - 1;
      if (position % linkEvery === 0 && parent > 0)
        linkEdges.push({ from_id: at(tree, position), to_id: at(tree, uncle), type: 'link' });
    }
  return { treeEdges, linkEdges };
}

/** The graph table's physical node and edge tables, which the floor queries directly. */
async function physicalNames(databaseUrl: string, site: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [registry] = await sql`SELECT schema_name FROM platform.data_site_schemas WHERE site = ${site}`;
    const [entry] = await sql`SELECT physical_name, layout FROM ${sql(String(registry?.schema_name))}.catalog
      WHERE name = ${graphTable}`;
    return {
      physical: String(entry?.physical_name),
      edgesPhysical: String((entry?.layout as { edges?: string } | undefined)?.edges),
    };
  } finally {
    await sql.end();
  }
}

/** Creates the graph table, its records and its edges through the API; the rates are the edges endpoint's. */
export async function prepareGraph(
  baseUrl: string,
  databaseUrl: string,
  auth: { token: string; site: string; app: string },
  count: number,
): Promise<GraphFixture> {
  const call = caller(baseUrl, { authorization: `Bearer ${auth.token}`, 'x-site': auth.site });
  const tables = `/api/apps/${auth.app}/datatables/`;
  const schema = {
    fields: [
      { name: 'name', type: 'string' },
      { name: 'created_at', type: 'datetime' },
    ],
    graph: {
      enabled: true,
      types: [
        { name: 'parent', inverse: 'kids', constraints: { max_outgoing: 1 } },
        { name: 'link', inverse: 'linked_from' },
      ],
    },
  };
  await expectStatus(call('POST', tables, { name: graphTable, schema }), 201, 'graph table');
  const trees = Math.max(1, Math.ceil(count / treeSize));
  const names = Array.from({ length: trees * treeSize }, (_, index) => ({ name: `node ${index}` }));
  const nodes = (await inBatches(names, async (items, first) => {
    const body = await expectStatus(
      call('POST', `${tables}${graphTable}/data/`, items),
      201,
      `nodes at ${first}`,
    );
    return (body.data as { id: string }[]).map((record) => record.id);
  })) as string[];
  const at = (tree: number, position: number) => nodes[tree * treeSize + position] as string;
  const { treeEdges, linkEdges } = graphEdges(trees, at);
  const edgesPath = `${tables}${graphTable}/edges/`;
  const send = (items: object[], first: number) =>
    expectStatus(call('POST', edgesPath, items), 201, `edges at ${first}`).then(
      (body) => body.data as unknown[],
    );
  const tree = await timed(() => inBatches(treeEdges, send));
  const dag = await timed(() => inBatches(linkEdges, send));
  const rate = (edges: number, seconds: number): Rate => ({
    edges,
    seconds,
    edgesPerSecond: edges / seconds,
  });
  return {
    ...(await physicalNames(databaseUrl, auth.site)),
    roots: Array.from({ length: trees }, (_, t) => at(t, 0)),
    leaves: Array.from({ length: trees }, (_, t) => at(t, treeSize - 1 - (t % 512))),
    nodes,
    load: {
      nodes: nodes.length,
      tree: rate(treeEdges.length, tree.seconds),
      dag: rate(linkEdges.length, dag.seconds),
    },
  };
}
