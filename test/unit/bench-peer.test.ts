import { describe, expect, it } from 'vitest';
import type { RunResult, ServerName } from '../../bench/measure';
import { columnDefinition, databaseUrlOf } from '../../bench/peer/copy';
import { findDirectus } from '../../bench/peer/directus';
import {
  contentionNote,
  loadOf,
  median,
  type PeerReport,
  pageMismatch,
  pageOf,
  peerFigures,
  renderPeerRegion,
} from '../../bench/peer/figures';
import {
  checkedSentence,
  createdMismatch,
  directusListQuery,
  directusQueryQuery,
  genericPath,
  peerRequest,
  peerScenarios,
  randomSources,
  recordMismatch,
  recordOf,
  type Sources,
  selectPeerScenarios,
} from '../../bench/peer/requests';
import { itemRecord } from '../../bench/setup';
import { keepSections, sectionOf, withSection } from '../../bin/doc-sections';

function run(server: ServerName, round: number, requestsPerSecond: number): RunResult {
  return {
    server,
    round,
    requestsPerSecond,
    requests: requestsPerSecond * 15,
    p50Ms: 10,
    p99Ms: 40,
    errors: 0,
    statusCodes: { 200: requestsPerSecond * 15 },
    cpuMsPerRequest: 1.5,
    databaseCpuMsPerRequest: Number.NaN,
  };
}

const ids = ['b', 'a', 'c'];

describe('the peer run: same page on every server', () => {
  it('reads the project/floor envelope and the Directus one', () => {
    expect(pageOf({ data: [{ id: 'b' }, { id: 'a' }], total: 7, page: 2 })).toEqual({
      ids: ['b', 'a'],
      total: 7,
    });
    expect(pageOf({ data: [{ id: 'b' }], meta: { filter_count: 7 } })).toEqual({ ids: ['b'], total: 7 });
    expect(() => pageOf({ errors: [{ message: 'forbidden' }] })).toThrow(/no data array/);
  });

  it('accepts the same ids in the same order and the same total', () => {
    const page = { ids, total: 30 };
    expect(pageMismatch({ project: page, floor: page, directus: { ids: [...ids], total: 30 } })).toBe(
      undefined,
    );
  });

  it('names the first difference: order, rows, total, or an empty page', () => {
    const project = { ids, total: 30 };
    expect(pageMismatch({ project, floor: project, directus: { ids: ['a', 'b', 'c'], total: 30 } })).toBe(
      "directus row 1 is a, the project's is b",
    );
    expect(pageMismatch({ project, floor: { ids: ['b', 'a'], total: 30 }, directus: project })).toBe(
      'floor returned 2 rows, the project 3',
    );
    expect(pageMismatch({ project, floor: project, directus: { ids, total: 29 } })).toBe(
      'directus total 29 != project total 30',
    );
    const empty = { ids: [], total: 0 };
    expect(pageMismatch({ project: empty, floor: empty, directus: empty })).toBe(
      'the project returned an empty page',
    );
  });
});

describe('the peer run: figures', () => {
  it('takes the median of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('divides the medians of each server', () => {
    const runs = [
      run('project', 1, 400),
      run('directus', 1, 150),
      run('floor', 1, 600),
      run('project', 2, 300),
      run('directus', 2, 200),
      run('floor', 2, 500),
      run('project', 3, 420),
      run('directus', 3, 100),
      run('floor', 3, 580),
    ];
    const figures = peerFigures(runs);
    expect(figures.medianRps).toEqual({ project: 400, directus: 150, floor: 580 });
    expect(figures.projectOverDirectus).toBeCloseTo(400 / 150, 10);
    expect(figures.projectOverFloor).toBeCloseTo(400 / 580, 10);
    expect(figures.directusOverFloor).toBeCloseTo(150 / 580, 10);
    expect(peerFigures([run('project', 1, 400)]).projectOverDirectus).toBeNaN();
  });
});

const settings = { connections: 10, poolSize: 10, warmupSeconds: 5, durationSeconds: 15, rounds: 3 };

const report: PeerReport = {
  date: '2026-11-23T22:00:00.000Z',
  command: 'BENCH_DIRECTUS_DIR=… npm run bench:peer',
  machine: { cpu: 'cpu', cores: 2, memoryGb: 8, node: 'v20.20.2', postgres: '15.10', platform: 'linux x64' },
  directusVersion: '12.4.0',
  auth: 'public',
  records: 100000,
  settings,
  uptime: { before: 'load average: 1.50, 4.0, 3.0', after: 'load average: 1.20, 5.0, 4.0' },
  indexes: ['PRIMARY KEY (id)', 'USING btree (category)'],
  scenarios: [
    {
      name: 'L1',
      description: 'list with one equality filter, page 2 of 25, with the total',
      target: 3,
      requests: { project: '/api/apps/{app}/…', directus: '/items/items?…', floor: '/items?…' },
      checked: 'the three return the same 25 ids in the same order and the same total (4990)',
      runs: [run('project', 1, 900), run('directus', 1, 200), run('floor', 1, 1200)],
    },
    {
      name: 'Q1',
      description: 'two filters',
      target: 2,
      requests: { project: '/api/apps/{app}/…', directus: '/items/items?…', floor: '/items/query?…' },
      checked: 'the three return the same 25 ids in the same order and the same total (5000)',
      runs: [run('project', 1, 250), run('directus', 1, 150), run('floor', 1, 300)],
    },
  ],
};

describe('the peer region of docs/benchmarks.md', () => {
  it('shows one summary row per scenario with its ratios against its own target', () => {
    const region = renderPeerRegion(report);
    expect(region).toContain('| L1 | 900.0 | 200.0 | 1200.0 | **4.50** | >= 3 | met | 0.750 | 0.167 |');
    expect(region).toContain(
      '| Q1 | 250.0 | 150.0 | 300.0 | **1.67** | >= 2 | **not met** | 0.833 | 0.500 |',
    );
    expect(region.indexOf('| L1 |')).toBeLessThan(region.indexOf('| Q1 |'));
  });

  it('shows per scenario the requests, what was checked and every run', () => {
    const region = renderPeerRegion(report);
    expect(region).toContain('### L1: list with one equality filter, page 2 of 25, with the total');
    expect(region).toContain('| floor | `/items/query?…` |');
    expect(region).toContain(
      'Checked before the runs: the three return the same 25 ids in the same order and the same total (4990).',
    );
    expect(region.match(/^\| 1 \| (project|directus|floor) \|/gm)).toHaveLength(6);
    expect(region).toContain('3 rounds per scenario alternated project, Directus, floor');
  });

  it('says how Directus was called and the load before and after', () => {
    const region = renderPeerRegion(report);
    expect(region).toContain('Directus was called without credentials');
    expect(region).toContain('load average: 1.50, 4.0, 3.0');
    expect(renderPeerRegion({ ...report, auth: 'token' })).toContain("with the admin's static token");
  });

  it('says the figures were taken under contention when the load exceeded the cores', () => {
    expect(renderPeerRegion(report)).not.toContain('under contention');
    const busy = renderPeerRegion({
      ...report,
      uptime: {
        before: '10:00 up 3:00, load average: 1.00, 1.0, 1.0',
        after: 'load average: 6.25, 5.0, 4.0',
      },
    });
    expect(busy).toContain('**Taken under contention**: the load average reached 6.25 on 2 cores');
  });

  it('is kept by a new report of npm run bench', () => {
    const previous = withSection('# Benchmarks\n\nold run\n', 'peer', renderPeerRegion(report));
    const next = keepSections('# Benchmarks\n\nnew run\n', previous);
    expect(next).not.toContain('old run');
    expect(sectionOf(next, 'peer')).toBe(sectionOf(previous, 'peer'));
  });
});

describe('the peer run: load and contention', () => {
  it('reads the 1-minute load average of an uptime line', () => {
    expect(loadOf(' 21:52:40 up 3:42, 0 user, load average: 7.00, 12.58, 12.67')).toBe(7);
    expect(loadOf('no load here')).toBeNaN();
  });

  it('notes nothing when the load stayed within the cores or is unknown', () => {
    expect(contentionNote({ before: 'load average: 2.00', after: 'load average: 1.5' }, 2)).toBeUndefined();
    expect(contentionNote({ before: '?', after: '?' }, 2)).toBeUndefined();
    expect(contentionNote({ before: '?', after: 'load average: 2.01, 1, 1' }, 2)).toMatch(
      /reached 2.01 on 2/,
    );
  });
});

const fixture = { app: 'shop', token: 'tok', site: 'acme', ids: ['11111111-1111-4111-8111-111111111111'] };
const fixed: Sources = { id: () => '22222222-2222-4222-8222-222222222222', record: () => 7 };

describe('the peer run: what each server is asked', () => {
  it("L1: the same filtered page 2 of 25 with the total, in each server's terms", () => {
    expect(peerRequest('L1', 'project', fixture, fixed)()).toEqual({
      method: 'GET',
      path: '/api/apps/shop/datatables/items/data/?category=cat-3&page=2&page_size=25',
      headers: { authorization: 'Bearer tok', 'x-site': 'acme' },
    });
    expect(peerRequest('L1', 'floor', fixture, fixed)().path).toBe(
      '/items?category=cat-3&page=2&page_size=25',
    );
    expect(peerRequest('L1', 'directus', fixture, fixed)()).toEqual({
      method: 'GET',
      path: '/items/items?filter[category][_eq]=cat-3&sort=created_at,id&limit=25&offset=25&meta=filter_count',
      headers: {},
    });
    expect(directusListQuery).toContain('sort=created_at,id');
    expect(directusQueryQuery).toContain('sort=-price,id');
  });

  it("Q1: the floor's query path and Directus's two filters", () => {
    expect(peerRequest('Q1', 'floor', fixture, fixed)().path).toBe(
      '/items/query?category=cat-3&price_gt=500&_sort=price&_order=desc&page=2&page_size=25',
    );
    expect(peerRequest('Q1', 'directus', fixture, fixed, { authorization: 'Bearer d' })()).toMatchObject({
      path: `/items/items?${directusQueryQuery}`,
      headers: { authorization: 'Bearer d' },
    });
  });

  it("G1: the key from the source on every request, each server's path for one record", () => {
    const ids = ['a', 'b'];
    let n = 0;
    const cycling: Sources = { id: () => ids[n++ % 2] as string, record: () => 0 };
    const project = peerRequest('G1', 'project', fixture, cycling);
    expect(project()).toEqual({
      method: 'GET',
      path: '/api/apps/shop/datatables/items/data/a/',
      headers: { authorization: 'Bearer tok', 'x-site': 'acme' },
    });
    expect(project().path).toBe('/api/apps/shop/datatables/items/data/b/');
    expect(peerRequest('G1', 'directus', fixture, fixed, { authorization: 'Bearer d' })()).toEqual({
      method: 'GET',
      path: '/items/items/22222222-2222-4222-8222-222222222222',
      headers: { authorization: 'Bearer d' },
    });
    expect(peerRequest('G1', 'floor', fixture, fixed)()).toEqual({
      method: 'GET',
      path: '/items/22222222-2222-4222-8222-222222222222',
      headers: {},
    });
  });

  it("C1: a new JSON body each request, posted to each server's collection", () => {
    let n = 40;
    const counting: Sources = { id: () => '', record: () => n++ };
    const project = peerRequest('C1', 'project', fixture, counting);
    const first = project();
    expect(first).toMatchObject({
      method: 'POST',
      path: '/api/apps/shop/datatables/items/data/',
      headers: { authorization: 'Bearer tok', 'x-site': 'acme', 'content-type': 'application/json' },
    });
    expect(JSON.parse(first.body ?? '')).toEqual(itemRecord(40));
    expect(JSON.parse(project().body ?? '')).toEqual(itemRecord(41));
    expect(peerRequest('C1', 'directus', fixture, counting, { authorization: 'Bearer d' })()).toMatchObject({
      path: '/items/items',
      headers: { 'content-type': 'application/json', authorization: 'Bearer d' },
    });
    const floor = peerRequest('C1', 'floor', fixture, counting)();
    expect(floor).toMatchObject({ path: '/items', headers: { 'content-type': 'application/json' } });
  });

  it('never sends headers: undefined (autocannon copies it over its own and fails)', () => {
    for (const scenario of peerScenarios)
      for (const server of ['project', 'directus', 'floor'] as const) {
        const request = peerRequest(scenario.name, server, fixture, fixed)();
        if ('headers' in request) expect(request.headers, `${scenario.name} ${server}`).toBeDefined();
      }
  });

  it('random sources: loaded keys, and record numbers past the loaded ones that never repeat', () => {
    const ids = ['x', 'y', 'z'];
    const sources = randomSources({ ids });
    for (let i = 0; i < 20; i++) expect(ids).toContain(sources.id());
    const first = sources.record();
    expect(first).toBeGreaterThanOrEqual(ids.length);
    expect(sources.record()).toBe(first + 1);
  });

  it('shows paths with the app and the key left generic', () => {
    expect(
      genericPath('/api/apps/shop/datatables/items/data/22222222-2222-4222-8222-222222222222/', 'shop'),
    ).toBe('/api/apps/{app}/datatables/items/data/{id}/');
    expect(genericPath('/items/items/22222222-2222-4222-8222-222222222222', 'shop')).toBe(
      '/items/items/{id}',
    );
  });

  it('runs the scenarios asked for, C1 last (its creates change the tables), and refuses unknown names', () => {
    expect(selectPeerScenarios(undefined).map((s) => s.name)).toEqual(['L1', 'G1', 'Q1', 'C1']);
    expect(selectPeerScenarios(['C1', 'Q1']).map((s) => s.name)).toEqual(['Q1', 'C1']);
    expect(() => selectPeerScenarios(['X9'])).toThrow(/Unknown peer scenario\(s\) X9/);
    expect(peerScenarios.filter((s) => s.name !== 'Q1').every((s) => s.target === 3)).toBe(true);
  });
});

describe('the peer run: the same record on every server', () => {
  const record = { id: 'k', title: 'Item 7', category: 'cat-7', price: 7.5 };

  it("reads a record from {data: …} or bare, Directus's numeric string as a number", () => {
    expect(recordOf({ data: { ...record, extra: 1 } })).toEqual(record);
    expect(recordOf(record)).toEqual(record);
    expect(recordOf({ data: { ...record, price: '7.5' } })).toEqual(record);
    expect(recordOf({ status: 'success', message: 'Record created successfully.', data: record })).toEqual(
      record,
    );
    expect(() => recordOf({ errors: [{ message: 'forbidden' }] })).toThrow(/no record with an id/);
    expect(() => recordOf({ data: [record] })).toThrow(/no record with an id/);
  });

  it('G1: names the first field a server disagrees on', () => {
    expect(recordMismatch({ project: record, floor: record, directus: { ...record } })).toBeUndefined();
    expect(recordMismatch({ project: record, floor: { ...record, id: 'j' }, directus: record })).toBe(
      'floor: id "j" != "k" (the project\'s)',
    );
    expect(recordMismatch({ project: record, floor: record, directus: { ...record, price: 8 } })).toBe(
      "directus: price 8 != 7.5 (the project's)",
    );
  });

  it('C1: the create answers what was sent under a new key, and reads back the same', () => {
    const sent = { ...record, id: 'sent' };
    expect(createdMismatch(sent, record, record)).toBeUndefined();
    expect(createdMismatch(sent, { ...record, title: 'other' }, record)).toBe(
      'the create answered title "other" != "Item 7" (sent)',
    );
    expect(createdMismatch(sent, record, { ...record, id: 'z' })).toBe(
      'reading it back gave id "z" != "k" (created)',
    );
  });

  it('says what was checked', () => {
    expect(checkedSentence('page', { ids: 25, total: 5000 })).toBe(
      'the three return the same 25 ids in the same order and the same total (5000)',
    );
    expect(checkedSentence('record', {})).toMatch(/same record/);
    expect(checkedSentence('create', {})).toMatch(/read back/);
  });
});

describe('the peer run: setup helpers', () => {
  it('skips without a Directus install directory, naming what is missing', () => {
    expect(findDirectus(undefined)).toBe('BENCH_DIRECTUS_DIR is not set');
    expect(findDirectus('/nonexistent/peer')).toMatch(
      /node_modules\/directus\/package.json not found \(run `npm install directus@12.4.0` in \/nonexistent\/peer\)/,
    );
  });

  it("gives the copy the source column's type, NOT NULL and default", () => {
    expect(columnDefinition({ name: 'id', type: 'uuid', notNull: true, default: 'gen_random_uuid()' })).toBe(
      '"id" uuid NOT NULL DEFAULT gen_random_uuid()',
    );
    expect(columnDefinition({ name: 'ti"tle', type: 'text', notNull: false, default: null })).toBe(
      '"ti""tle" text',
    );
  });

  it('points a URL at another database of the cluster, keeping the credentials', () => {
    expect(databaseUrlOf('postgres://postgres:pw@127.0.0.1:55434/postgres', 'directus')).toBe(
      'postgres://postgres:pw@127.0.0.1:55434/directus',
    );
  });
});
