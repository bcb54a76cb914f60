import { graphTable } from './graph-setup';
import { categories, type Fixture, itemRecord, searchWords, tableName } from './setup';

/**
 * The scenarios: one entry each, with the request the project gets and the request the floor gets for the same
 * work, and the target ratio of the project's throughput to the floor's. A new scenario is a new entry here.
 */

/** An HTTP request as autocannon sends it. */
export interface BenchRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Builds the next request; called for every request, so it may vary (random keys, new bodies). */
export type RequestFactory = (fixture: Fixture) => () => BenchRequest;

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** Minimum project/floor req/s ratio. */
  readonly target: number;
  readonly project: RequestFactory;
  readonly floor: RequestFactory;
  /**
   * Why the memory target does not apply to this scenario, if it does not (login: every scrypt hash needs 16 MiB,
   * and one runs per libuv thread at a time, on the floor as much as in the project).
   */
  readonly outsideMemoryTarget?: string;
}

export function projectHeaders(fixture: Fixture, json = false): Record<string, string> {
  return {
    authorization: `Bearer ${fixture.token}`,
    'x-site': fixture.site,
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}

const json = { 'content-type': 'application/json' };

export function dataPath(fixture: Fixture): string {
  return `/api/apps/${fixture.app}/datatables/${tableName}/data/`;
}

function randomId(fixture: Fixture): string {
  return fixture.ids[Math.floor(Math.random() * fixture.ids.length)] as string;
}

/** New records of C1 continue the loaded numbering, so every body is a record never sent before. */
function newRecords(fixture: Fixture): () => string {
  let n = fixture.ids.length + Math.floor(Math.random() * 1e9);
  return () => JSON.stringify(itemRecord(n++));
}

export const listQuery = `category=${categories[3]}&page=2&page_size=25`;
export const queryQuery = `category=${categories[3]}&price_gt=500&_sort=price&_order=desc&page=2&page_size=25`;
const aggregateQuery = `_group_by=category&_aggregate=${encodeURIComponent('count(*),sum(price)')}`;
const searchQuery = `search=${encodeURIComponent(searchWords)}&page_size=25`;
const populateQuery = 'page_size=25&populate=maker';

/** A GET of the list with a query string, the same request every time; the floor's path takes the same query. */
function listScenario(
  name: string,
  description: string,
  target: number,
  query: string,
  floorPath: string,
): Scenario {
  return {
    name,
    description: `${description} (\`?${decodeURIComponent(query)}\`)`,
    target,
    project: (fixture) => {
      const request: BenchRequest = {
        method: 'GET',
        path: `${dataPath(fixture)}?${query}`,
        headers: projectHeaders(fixture),
      };
      return () => request;
    },
    floor: () => () => ({ method: 'GET', path: `${floorPath}?${query}` }),
  };
}

/**
 * U0, U1, U3: the superuser creates a user (a new one each request) in a site whose app has 0, 1 or 3
 * PRE_USER_CREATE subscribers on the local runner, each the trivial accepting module. The floor does the scrypt
 * hash the creation needs (its `/login`); the added latency of the subscribers is U1's and U3's against U0's.
 */
function userCreationScenario(subscribers: number): Scenario {
  return {
    name: `U${subscribers}`,
    description: `create a user (admin create) with ${subscribers} PRE_USER_CREATE subscriber(s) on the local runner (the floor: the scrypt hash)`,
    target: 0.8,
    outsideMemoryTarget:
      'scrypt takes 16 MiB per hash (N=16384, r=8), one per libuv thread at a time, in both servers',
    project: (fixture) => {
      const headers = {
        ...projectHeaders(fixture, true),
        'x-site': fixture.eventSites[subscribers] as string,
      };
      let n = Math.floor(Math.random() * 1e9);
      return () => {
        const username = `bench-u${subscribers}-${n++}`;
        const body = JSON.stringify({
          username,
          email: `${username}@example.com`,
          password: fixture.adminPassword,
        });
        return { method: 'POST', path: '/api/cloud/users/', headers, body };
      };
    },
    floor: (fixture) => {
      const body = JSON.stringify({ username: 'admin', password: fixture.adminPassword });
      return () => ({ method: 'POST', path: '/login', headers: json, body });
    },
  };
}

/** L1: a list with one equality filter. */
const l1: Scenario = {
  name: 'L1',
  description: `list with one equality filter, page 2 of 25, with the total (\`?${listQuery}\`)`,
  target: 0.7,
  project: (fixture) => {
    const request: BenchRequest = {
      method: 'GET',
      path: `${dataPath(fixture)}?${listQuery}`,
      headers: projectHeaders(fixture),
    };
    return () => request;
  },
  floor: () => () => ({ method: 'GET', path: `/items?${listQuery}` }),
};

/** G1: one record by id. */
const g1: Scenario = {
  name: 'G1',
  description: 'get one record by id (a random loaded record each request)',
  target: 0.5,
  project: (fixture) => {
    const headers = projectHeaders(fixture);
    return () => ({ method: 'GET', path: `${dataPath(fixture)}${randomId(fixture)}/`, headers });
  },
  floor: (fixture) => () => ({ method: 'GET', path: `/items/${randomId(fixture)}` }),
};

/**
 * A scenario again with the site's API key as the bearer instead of the user's verified token (issue 40: a request
 * with a key costs no more than one with a token; each within 5 % of its JWT twin). Same path, same work.
 */
function withApiKey(base: Scenario, name: string): Scenario {
  return {
    ...base,
    name,
    description: `${base.name} with an API key instead of a JWT: ${base.description}`,
    project: (fixture) => base.project({ ...fixture, token: fixture.apiKey }),
  };
}

export const scenarios: readonly Scenario[] = [
  l1,
  g1,
  // Right after their JWT twins, before C1 adds records: the same table for both.
  withApiKey(l1, 'L1K'),
  withApiKey(g1, 'G1K'),
  {
    name: 'C1',
    description: 'create one record (a new body each request)',
    target: 0.5,
    project: (fixture) => {
      const headers = projectHeaders(fixture, true);
      const body = newRecords(fixture);
      return () => ({ method: 'POST', path: dataPath(fixture), headers, body: body() });
    },
    floor: (fixture) => {
      const body = newRecords(fixture);
      return () => ({ method: 'POST', path: '/items', headers: json, body: body() });
    },
  },
  {
    name: 'A1',
    description: 'log in with username and password (the floor: scrypt with the same parameters)',
    target: 0.9,
    outsideMemoryTarget:
      'scrypt takes 16 MiB per hash (N=16384, r=8), one per libuv thread at a time, in both servers',
    project: (fixture) => {
      const bodies = fixture.users.map((username) =>
        JSON.stringify({ username, password: fixture.adminPassword }),
      );
      let next = 0;
      return () => {
        next = (next + 1) % bodies.length;
        return { method: 'POST', path: '/api/auth/jwt/token/', headers: json, body: bodies[next] as string };
      };
    },
    floor: (fixture) => {
      const body = JSON.stringify({ username: 'admin', password: fixture.adminPassword });
      return () => ({ method: 'POST', path: '/login', headers: json, body });
    },
  },
  listScenario(
    'Q1',
    'two filters (one `_gt`), `_sort` descending, page 2 of 25, with the total',
    0.7,
    queryQuery,
    '/items/query',
  ),
  listScenario('AG1', '`_group_by` with `count(*)` and `sum`', 0.8, aggregateQuery, '/items/aggregate'),
  listScenario(
    'S1',
    'full-text `search` of two words with rank and excerpt, a page of 25',
    0.8,
    searchQuery,
    '/items/search',
  ),
  listScenario(
    'P1',
    'a page of 25 with `populate` of one foreign key',
    0.6,
    populateQuery,
    '/items/populate',
  ),
  {
    name: 'SE1',
    description:
      'warm read of a private app-level secret (`/api/secrets/{key}/?app=…`; the floor reads and decrypts the item)',
    target: 0.5,
    project: (fixture) => {
      const request: BenchRequest = {
        method: 'GET',
        path: `/api/secrets/${fixture.secretKey}/?app=${fixture.app}`,
        headers: projectHeaders(fixture),
      };
      return () => request;
    },
    floor: (fixture) => () => ({
      method: 'GET',
      path: `/secrets/${fixture.site}/${fixture.app}/${fixture.secretKey}`,
    }),
  },
  userCreationScenario(0),
  userCreationScenario(1),
  userCreationScenario(3),
  graphScenario(
    'GR1',
    'descendants at depth 10 of a tree root (~1,000 descendants)',
    (graph) => graph.roots,
    'include=descendants&depth=10&relationship_type=parent',
    'descendants',
  ),
  graphScenario(
    'GR2',
    'ancestors of a leaf, closest first',
    (graph) => graph.leaves,
    'include=ancestors&relationship_type=parent',
    'ancestors',
  ),
  graphScenario(
    'GR3',
    '`format=tree` of a random record: its tree (~1,000 records) from the natural root',
    (graph) => graph.nodes,
    'format=tree&relationship_type=parent',
    'tree',
  ),
];

function graphOf(fixture: Fixture): NonNullable<Fixture['graph']> {
  if (!fixture.graph) throw new Error('the graph scenarios need the graph fixture');
  return fixture.graph;
}

function pick(ids: readonly string[]): string {
  return ids[Math.floor(Math.random() * ids.length)] as string;
}

/** A graph read of a random record from `ids`; the floor runs the same recursive CTE (bench/floor/graph.ts). */
function graphScenario(
  name: string,
  description: string,
  ids: (graph: NonNullable<Fixture['graph']>) => readonly string[],
  query: string,
  floorKind: string,
): Scenario {
  return {
    name,
    description: `${description} (\`?${query}\`)`,
    target: 0.7,
    project: (fixture) => {
      const headers = projectHeaders(fixture);
      const from = ids(graphOf(fixture));
      const path = `/api/apps/${fixture.app}/datatables/${graphTable}/data/`;
      return () => ({ method: 'GET', path: `${path}${pick(from)}/?${query}`, headers });
    },
    floor: (fixture) => {
      const from = ids(graphOf(fixture));
      return () => ({ method: 'GET', path: `/graph/${floorKind}/${pick(from)}` });
    },
  };
}

/** The scenarios a run asks for, in registry order; unknown names stop the bench. */
export function selectScenarios(names: readonly string[] | undefined): Scenario[] {
  if (!names) return [...scenarios];
  const unknown = names.filter((name) => !scenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0)
    throw new Error(
      `Unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((scenario) => scenario.name).join(', ')}`,
    );
  return scenarios.filter((scenario) => names.includes(scenario.name));
}
