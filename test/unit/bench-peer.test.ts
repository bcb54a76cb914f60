import { describe, expect, it } from 'vitest';
import type { RunResult, ServerName } from '../../bench/measure';
import { databaseUrlOf } from '../../bench/peer/copy';
import { findDirectus } from '../../bench/peer/directus';
import {
  median,
  type PeerReport,
  pageMismatch,
  pageOf,
  peerFigures,
  renderPeerRegion,
} from '../../bench/peer/figures';
import { keepSections, sectionOf, withSection } from '../../bench/sections';

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

const report: PeerReport = {
  date: '2026-11-23T22:00:00.000Z',
  command: 'BENCH_DIRECTUS_DIR=… npm run bench:peer',
  machine: { cpu: 'cpu', cores: 2, memoryGb: 8, node: 'v20.20.2', postgres: '15.10', platform: 'linux x64' },
  directusVersion: '12.4.0',
  auth: 'public',
  records: 100000,
  settings: { connections: 10, poolSize: 10, warmupSeconds: 5, durationSeconds: 15 },
  uptime: { before: 'load average: 5.0, 4.0, 3.0', after: 'load average: 6.0, 5.0, 4.0' },
  requests: { project: '/api/apps/{app}/…', directus: '/items/items?…', floor: '/items/query?…' },
  page: { ids: Array.from({ length: 25 }, (_, index) => `id-${index}`), total: 4990 },
  indexes: ['PRIMARY KEY (id)', 'USING btree (category)'],
  runs: [run('project', 1, 400), run('directus', 1, 150), run('floor', 1, 600)],
  target: 2,
};

describe('the peer region of docs/benchmarks.md', () => {
  it('shows the ratios against the target, how Directus was read, the load and every run', () => {
    const region = renderPeerRegion(report);
    expect(region).toContain('| project / Directus | **2.67** (target >= 2: met) |');
    expect(region).toContain('| project / floor | 0.667 |');
    expect(region).toContain('| Directus / floor | 0.250 |');
    expect(region).toContain('Directus was read publicly');
    expect(region).toContain('load average: 5.0, 4.0, 3.0');
    expect(region).toContain('same 25 ids in the same order and the same total (4990)');
    expect(region.match(/^\| 1 \| (project|directus|floor) \|/gm)).toHaveLength(3);
    const slower = renderPeerRegion({
      ...report,
      auth: 'token',
      runs: [run('project', 1, 250), run('directus', 1, 150)],
    });
    expect(slower).toContain('(target >= 2: **not met**)');
    expect(slower).toContain("with the admin's static token");
  });

  it('is kept by a new report of npm run bench', () => {
    const previous = withSection('# Benchmarks\n\nold run\n', 'peer', renderPeerRegion(report));
    const next = keepSections('# Benchmarks\n\nnew run\n', previous);
    expect(next).not.toContain('old run');
    expect(sectionOf(next, 'peer')).toBe(sectionOf(previous, 'peer'));
  });
});

describe('the peer run: setup helpers', () => {
  it('skips without a Directus install directory, naming what is missing', () => {
    expect(findDirectus(undefined)).toBe('BENCH_DIRECTUS_DIR is not set');
    expect(findDirectus('/nonexistent/peer')).toMatch(
      /node_modules\/directus\/package.json not found \(run `npm install directus@12.4.0` in \/nonexistent\/peer\)/,
    );
  });

  it('points a URL at another database of the cluster, keeping the credentials', () => {
    expect(databaseUrlOf('postgres://postgres:pw@127.0.0.1:55434/postgres', 'directus')).toBe(
      'postgres://postgres:pw@127.0.0.1:55434/directus',
    );
  });
});
