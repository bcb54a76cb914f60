import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type ColdReport,
  type ColdRequest,
  type ColdSample,
  coldEvent,
  coldFigures,
  coldRequests,
  parseSample,
  renderColdRegion,
} from '../../bench/cold-figures';
import { keepSections, keptSections, sectionOf, withSection } from '../../bin/doc-sections';
import { groups, routesOf } from '../../functions/groups';

const fixture = {
  token: 'tok',
  org: 'bench',
  site: 'bench-shop',
  app: 'bench-app',
  secretKey: 'bench-token',
  recordId: '22222222-2222-4222-8222-222222222222',
};

describe('the cold start: one request per group', () => {
  it('has a request for every group with routes, each once', () => {
    const withRoutes = Object.values(groups)
      .filter((group) => routesOf(group.name).length > 0)
      .map((group) => group.name)
      .sort();
    expect(
      coldRequests(fixture)
        .map((request) => request.group)
        .sort(),
    ).toEqual(withRoutes);
  });

  it('asks each group for a route it has', () => {
    for (const request of coldRequests(fixture)) {
      const path = request.url.split('?')[0] as string;
      const matches = routesOf(request.group as keyof typeof groups).some((route) => {
        if (route.method !== request.method) return false;
        const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        return pattern.test(path);
      });
      expect(matches, `${request.group} ${path}`).toBe(true);
    }
  });

  it('signs the store reads in, leaves the documents anonymous, names the site where one is needed', () => {
    const byGroup = Object.fromEntries(coldRequests(fixture).map((request) => [request.group, request]));
    expect(byGroup.data?.url).toBe(
      '/api/apps/bench-app/datatables/items/data/22222222-2222-4222-8222-222222222222/',
    );
    expect(byGroup.data?.headers).toMatchObject({ authorization: 'Bearer tok', 'x-site': 'bench-shop' });
    expect(byGroup.secrets?.url).toBe('/api/secrets/bench-token/?app=bench-app');
    expect(byGroup.invitations?.url).toBe('/api/cloud/organizations/bench/invitations/');
    expect(byGroup.accounts?.headers).toMatchObject({ authorization: 'Bearer tok' });
    expect(byGroup.accounts?.headers).not.toHaveProperty('x-site');
    for (const group of ['meta', 'pages'])
      expect(byGroup[group]?.headers, group).not.toHaveProperty('authorization');
    expect(coldRequests(fixture).every((request) => request.status === 200)).toBe(true);
  });

  it('gives the handler the event the local server would make', () => {
    const request = coldRequests(fixture).find((candidate) => candidate.group === 'secrets');
    if (!request) throw new Error('no secrets request');
    const event = coldEvent(request);
    expect(event).toMatchObject({
      version: '2.0',
      rawPath: '/api/secrets/bench-token/',
      rawQueryString: 'app=bench-app',
      queryStringParameters: { app: 'bench-app' },
      headers: { authorization: 'Bearer tok', 'x-site': 'bench-shop' },
      requestContext: { http: { method: 'GET', path: '/api/secrets/bench-token/' } },
      body: undefined,
    });
    // The probe gets it as JSON.
    expect(JSON.parse(JSON.stringify(event)).rawPath).toBe('/api/secrets/bench-token/');
  });
});

const sample = (importMs: number, firstMs: number, warmMs: number[], extra: Partial<ColdSample> = {}) =>
  ({
    startMs: 40,
    importMs,
    firstMs,
    warmMs,
    statuses: [200, ...warmMs.map(() => 200)],
    rssMb: 60,
    ...extra,
  }) as ColdSample;

describe('the cold start: the probe process', () => {
  it('imports the handler, sends the event cold then warm, and prints a line parseSample reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cold-probe-'));
    const handler = join(dir, 'index.mjs');
    // Answers with what it was sent, so the test sees the event and a fresh request id per call.
    writeFileSync(
      handler,
      'const seen = new Set(); export const handler = async (event, context) => { seen.add(event.requestContext.requestId); seen.add(context.awsRequestId); return { statusCode: event.rawPath === "/x" && seen.size === 2 * (globalThis.calls = (globalThis.calls ?? 0) + 1) ? 200 : 500, body: "" }; };',
    );
    const request = { ...(coldRequests(fixture)[0] as ColdRequest), url: '/x' };
    const output = execFileSync(process.execPath, ['bench/cold-probe.mjs'], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        COLD_HANDLER: pathToFileURL(handler).href,
        COLD_EVENT: JSON.stringify(coldEvent(request)),
        COLD_WARM: '3',
      },
    });
    const sample = parseSample(output, 200);
    expect(sample.statuses).toEqual([200, 200, 200, 200]);
    expect(sample.warmMs).toHaveLength(3);
    expect(sample.importMs).toBeGreaterThan(0);
    expect(sample.rssMb).toBeGreaterThan(0);
  });
});

describe('the cold start: what a probe reports', () => {
  it('reads the last line the probe printed', () => {
    const line = JSON.stringify(sample(100, 50, [2, 3]));
    expect(parseSample(`a warning\n${line}\n`, 200)).toMatchObject({
      importMs: 100,
      firstMs: 50,
      warmMs: [2, 3],
    });
  });

  it('refuses an answer other than the expected status, naming the body', () => {
    const line = JSON.stringify({ ...sample(1, 1, [1]), statuses: [401, 401], firstBody: '{"detail":"no"}' });
    expect(() => parseSample(line, 200)).toThrow('answered 401 instead of 200: {"detail":"no"}');
  });

  it('refuses output that is not a full sample', () => {
    expect(() => parseSample('Error: cannot find module', 200)).toThrow(/printed no JSON line/);
    expect(() => parseSample(JSON.stringify({ ...sample(1, 1, [1]), importMs: null }), 200)).toThrow(
      "the probe's importMs is null",
    );
    expect(() => parseSample(JSON.stringify(sample(1, 1, [])), 200)).toThrow(/no warm request/);
  });

  it('takes medians over the processes: cold is import plus first request of each process', () => {
    const figures = coldFigures('data', [
      sample(100, 50, [2, 4, 9]),
      sample(120, 10, [3]),
      sample(90, 200, [5, 1]),
    ]);
    expect(figures).toEqual({
      group: 'data',
      samples: 3,
      startMs: 40,
      importMs: 100,
      firstMs: 50,
      coldMs: 150,
      warmMs: 3,
      rssMb: 60,
    });
  });
});

const report: ColdReport = {
  date: '2026-11-28T02:00:00.000Z',
  command: 'npm run bench:cold',
  machine: { cpu: 'cpu', cores: 2, memoryGb: 8, node: 'v20.20.2', postgres: '15.18', platform: 'linux x64' },
  runs: 5,
  warm: 5,
  records: 1000,
  uptime: { before: 'load average: 0.5, 0.4, 0.3', after: 'load average: 0.6, 0.5, 0.4' },
  requests: coldRequests(fixture),
  figures: [coldFigures('data', [sample(100, 50, [2])]), coldFigures('meta', [sample(80, 20, [0.25])])],
};

describe('the cold region of docs/benchmarks.md', () => {
  it('shows one row per group with its request and its figures', () => {
    const region = renderColdRegion(report, undefined);
    expect(region).toContain(
      '| data | one record by id, G1 (`GET /api/apps/{app}/datatables/items/data/{id}/`) | 40.0 | 100.0 | 50.0 | **150.0** | 2.0 | 60.0 |',
    );
    expect(region).toContain(
      '| meta | the OpenAPI document (`GET /ninja-openapi.json`) | 40.0 | 80.0 | 20.0 | **100.0** | 0.3 | 60.0 |',
    );
    expect(region).toContain('5 processes per group; medians');
    expect(region).toContain('load average: 0.5, 0.4, 0.3');
    expect(region).not.toContain('contention');
    expect(renderColdRegion(report, '**Taken under contention**: busy')).toContain(
      '**Taken under contention**: busy',
    );
  });

  it('is kept by a new report of npm run bench', () => {
    expect(keptSections).toContain('cold');
    const previous = withSection('# Benchmarks\n\nold run\n', 'cold', renderColdRegion(report, undefined));
    const next = keepSections('# Benchmarks\n\nnew run\n', previous);
    expect(next).not.toContain('old run');
    expect(sectionOf(next, 'cold')).toBe(sectionOf(previous, 'cold'));
  });
});
