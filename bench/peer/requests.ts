import type { ServerName } from '../measure';
import { type BenchRequest, dataPath, listQuery, projectHeaders, queryQuery } from '../scenarios';
import { categories, type Fixture, itemRecord } from '../setup';

/**
 * The peer run's scenarios (`npm run bench:peer`): the same work asked of the project, Directus and the floor, in
 * each one's own terms. Q1 is a query PostgreSQL does most of the work for; L1, G1 and C1 are the ones where the
 * API's own cost decides. The request builders are pure: G1 and C1 take the id or record number from a source the
 * caller gives (random loaded ids and new records while measuring, one fixed value for the check before).
 */

export type PeerScenarioName = 'Q1' | 'L1' | 'G1' | 'C1';

/** How the answers are compared before the runs: a page (ids and total), one record, or a create read back. */
export type PeerCheck = 'page' | 'record' | 'create';

export interface PeerScenario {
  readonly name: PeerScenarioName;
  readonly description: string;
  /** Minimum project/Directus ratio of median req/s. */
  readonly target: number;
  readonly check: PeerCheck;
}

export const peerScenarios: readonly PeerScenario[] = [
  {
    name: 'L1',
    description: 'list with one equality filter, page 2 of 25, with the total',
    target: 3,
    check: 'page',
  },
  {
    name: 'G1',
    description: 'get one record by id (a random loaded record each request)',
    target: 3,
    check: 'record',
  },
  {
    name: 'Q1',
    description: 'two filters (one `_gt`), `_sort` descending, page 2 of 25, with the total',
    target: 2,
    check: 'page',
  },
  // Last: its creates grow the project's table (the project's and the floor's) and Directus's copy by different
  // counts, so a list checked after it would find different totals.
  { name: 'C1', description: 'create one record (a new body each request)', target: 3, check: 'create' },
];

/** The peer scenarios named in `names` (BENCH_SCENARIOS), all when absent; an unknown name stops the run. */
export function selectPeerScenarios(names: readonly string[] | undefined): PeerScenario[] {
  if (!names) return [...peerScenarios];
  const unknown = names.filter((name) => !peerScenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0)
    throw new Error(
      `Unknown peer scenario(s) ${unknown.join(', ')}; bench:peer runs ${peerScenarios.map((s) => s.name).join(', ')}`,
    );
  return peerScenarios.filter((scenario) => names.includes(scenario.name));
}

/**
 * L1 in Directus's query language: the project's default order (`created_at`, then the key), page 2 of 25, the
 * total of the filtered rows.
 */
export const directusListQuery = [
  `filter[category][_eq]=${categories[3]}`,
  'sort=created_at,id',
  'limit=25',
  'offset=25',
  'meta=filter_count',
].join('&');

/** Q1 in Directus's query language: the project's `price DESC` with its `id` tiebreaker, page 2 of 25, the total. */
export const directusQueryQuery = [
  `filter[category][_eq]=${categories[3]}`,
  'filter[price][_gt]=500',
  'sort=-price,id',
  'limit=25',
  'offset=25',
  'meta=filter_count',
].join('&');

const json = { 'content-type': 'application/json' };

/** Where G1 and C1 take their keys and new records from. */
export interface Sources {
  /** The key of a loaded record (G1). */
  readonly id: () => string;
  /** The number of a record never sent before (C1's body is `itemRecord(n)`). */
  readonly record: () => number;
}

/** Random loaded keys; new record numbers after the loaded ones from a random start, one counter per server. */
export function randomSources(fixture: Pick<Fixture, 'ids'>): Sources {
  let n = fixture.ids.length + Math.floor(Math.random() * 1e9);
  return {
    id: () => fixture.ids[Math.floor(Math.random() * fixture.ids.length)] as string,
    record: () => n++,
  };
}

/** The request each server gets for one scenario; `directusHeaders` carries the admin token when asked for. */
export function peerRequest(
  scenario: PeerScenarioName,
  server: ServerName,
  fixture: Pick<Fixture, 'app' | 'token' | 'site'>,
  sources: Sources,
  directusHeaders: Record<string, string> = {},
): () => BenchRequest {
  const project = (json: boolean) => projectHeaders(fixture as Fixture, json);
  const data = dataPath(fixture as Fixture);
  const body = () => JSON.stringify(itemRecord(sources.record()));
  switch (scenario) {
    case 'L1':
    case 'Q1': {
      const query = scenario === 'L1' ? listQuery : queryQuery;
      const request: BenchRequest =
        server === 'project'
          ? { method: 'GET', path: `${data}?${query}`, headers: project(false) }
          : server === 'floor'
            ? { method: 'GET', path: `${scenario === 'L1' ? '/items' : '/items/query'}?${query}` }
            : {
                method: 'GET',
                path: `/items/items?${scenario === 'L1' ? directusListQuery : directusQueryQuery}`,
                headers: directusHeaders,
              };
      return () => request;
    }
    case 'G1':
      return () => ({
        method: 'GET',
        path: recordPath(server, fixture, sources.id()),
        headers: readHeaders(),
      });
    case 'C1':
      return () => ({
        method: 'POST',
        path: server === 'project' ? data : server === 'floor' ? '/items' : '/items/items',
        headers:
          server === 'project'
            ? project(true)
            : { ...json, ...(server === 'directus' ? directusHeaders : {}) },
        body: body(),
      });
  }
  function readHeaders(): Record<string, string> {
    // Never undefined: autocannon copies the request's properties over its defaults, and fails on no headers.
    return server === 'project' ? project(false) : server === 'directus' ? directusHeaders : {};
  }
}

/** The path that reads one record by key on each server (G1, and a create read back). */
export function recordPath(server: ServerName, fixture: Pick<Fixture, 'app'>, id: string): string {
  if (server === 'project') return `${dataPath(fixture as Fixture)}${id}/`;
  if (server === 'directus') return `/items/items/${id}`;
  return `/items/${id}`;
}

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** A request's path as the region shows it: the app as `{app}`, a record's key as `{id}`. */
export function genericPath(path: string, app: string): string {
  return path.replace(`/apps/${app}/`, '/apps/{app}/').replace(uuid, '{id}');
}

/** The fields of a record the servers must agree on. */
export interface RecordFields {
  readonly id: string;
  readonly title: string;
  readonly category: string;
  readonly price: number;
}

/**
 * The record of an answer: `{data: {…}}` (floor, Directus, the project's create) or the record itself. Directus
 * shows a numeric column as a string, the others as a number: compared as numbers.
 */
export function recordOf(body: unknown): RecordFields {
  const answer = (body ?? {}) as { data?: unknown };
  const candidate =
    answer.data && typeof answer.data === 'object' && !Array.isArray(answer.data) ? answer.data : body;
  const row = (candidate ?? {}) as Record<string, unknown>;
  if (typeof row.id !== 'string' && typeof row.id !== 'number')
    throw new Error(`no record with an id in ${JSON.stringify(body).slice(0, 200)}`);
  return {
    id: String(row.id),
    title: String(row.title),
    category: String(row.category),
    price: Number(row.price),
  };
}

/** Why two records differ (the first field), or undefined when they are the same. */
function fieldMismatch(expected: RecordFields, actual: RecordFields, ignoreId: boolean): string | undefined {
  for (const field of ['id', 'title', 'category', 'price'] as const) {
    if (ignoreId && field === 'id') continue;
    if (expected[field] !== actual[field])
      return `${field} ${JSON.stringify(actual[field])} != ${JSON.stringify(expected[field])}`;
  }
  return undefined;
}

/** G1's check: every server returned the project's record for the same key. */
export function recordMismatch(records: Readonly<Record<ServerName, RecordFields>>): string | undefined {
  for (const name of ['floor', 'directus'] as const) {
    const why = fieldMismatch(records.project, records[name], false);
    if (why) return `${name}: ${why} (the project's)`;
  }
  return undefined;
}

/**
 * C1's check on one server: the create answered the record sent (with a key of its own) and reading that key
 * back gives the same record.
 */
export function createdMismatch(
  sent: RecordFields,
  created: RecordFields,
  readBack: RecordFields,
): string | undefined {
  const answered = fieldMismatch(sent, created, true);
  if (answered) return `the create answered ${answered} (sent)`;
  const read = fieldMismatch(created, readBack, false);
  if (read) return `reading it back gave ${read} (created)`;
  return undefined;
}

/** The sentence of the region that says what was checked before a scenario's runs. */
export function checkedSentence(check: PeerCheck, detail: { ids?: number; total?: number }): string {
  if (check === 'page')
    return `the three return the same ${detail.ids} ids in the same order and the same total (${detail.total})`;
  if (check === 'record')
    return 'the three return the same record (id, title, category, price) for the same key';
  return 'each server created a record from the same kind of body, answered it with a new key, and returned it when read back by that key';
}
