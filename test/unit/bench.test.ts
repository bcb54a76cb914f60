import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBenchConfig } from '../../bench/config';
import type { RunResult } from '../../bench/measure';
import { cpuMillis, databaseCpuMillis, findPostmaster, memory } from '../../bench/processes';
import { renderMarkdown } from '../../bench/report';
import { type BenchResults, summarize } from '../../bench/results';
import { scenarios, selectScenarios } from '../../bench/scenarios';
import type { Fixture } from '../../bench/setup';

function run(server: RunResult['server'], round: number, requestsPerSecond: number): RunResult {
  return {
    server,
    round,
    requestsPerSecond,
    requests: requestsPerSecond * 10,
    p50Ms: 1,
    p99Ms: 2,
    errors: 0,
    statusCodes: { 200: requestsPerSecond * 10 },
    cpuMsPerRequest: 0.5,
    databaseCpuMsPerRequest: server === 'project' ? 0.25 : Number.NaN,
  };
}

const fixture: Fixture = {
  users: ['bench-user-0', 'bench-user-1'],
  token: 'token',
  apiKey: 'tbk_key',
  site: 'bench-shop',
  app: 'bench-app',
  adminPassword: 'secret',
  schema: 'site_bench_shop',
  physical: 'a1_items',
  makersPhysical: 'a1_makers',
  ids: ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'],
  secretKey: 'bench-token',
  eventSites: { 0: 'bench-shop', 1: 'bench-events-1', 3: 'bench-events-3' },
  load: { records: 2, seconds: 1, recordsPerSecond: 2 },
};

describe('bench settings', () => {
  it('defaults to the issue: 100000 records, 5 s warm-up, 15 s runs, 10 connections, two rounds', () => {
    const config = loadBenchConfig({});
    expect(config).toMatchObject({
      records: 100_000,
      warmupSeconds: 5,
      durationSeconds: 15,
      connections: 10,
      poolSize: 10,
      rounds: 2,
      scenarios: undefined,
      databaseUrl: undefined,
    });
  });

  it('reads the short-run variables and refuses malformed ones by name', () => {
    const config = loadBenchConfig({
      BENCH_RECORDS: '20000',
      BENCH_DURATION: '5',
      BENCH_SCENARIOS: 'l1, g1',
    });
    expect(config.records).toBe(20_000);
    expect(config.durationSeconds).toBe(5);
    expect(config.scenarios).toEqual(['L1', 'G1']);
    expect(() => loadBenchConfig({ BENCH_WARMUP: 'soon' })).toThrow(/BENCH_WARMUP/);
  });
});

describe('bench scenarios', () => {
  it('selects by name in registry order and names unknown scenarios', () => {
    expect(selectScenarios(['A1', 'L1']).map((scenario) => scenario.name)).toEqual(['L1', 'A1']);
    expect(() => selectScenarios(['X9'])).toThrow(
      /X9.*known: L1, G1, L1K, G1K, C1, A1, Q1, AG1, S1, P1, SE1/,
    );
  });

  it('sends the project authenticated requests on the records API and the floor bare ones', () => {
    const get = scenarios.find((scenario) => scenario.name === 'G1');
    const project = get?.project(fixture)();
    expect(project?.path).toMatch(/^\/api\/apps\/bench-app\/datatables\/items\/data\/[0-9a-f-]{36}\/$/);
    expect(project?.headers).toMatchObject({ authorization: 'Bearer token', 'x-site': 'bench-shop' });
    expect(get?.floor(fixture)().headers).toBeUndefined();
  });

  it('sends L1K and G1K the requests of L1 and G1 with the API key as the bearer, before C1 adds records', () => {
    for (const [keyed, twin] of [
      ['L1K', 'L1'],
      ['G1K', 'G1'],
    ] as const) {
      const withKey = scenarios.find((scenario) => scenario.name === keyed);
      const withToken = scenarios.find((scenario) => scenario.name === twin);
      expect(withKey?.target).toBe(withToken?.target);
      const request = withKey?.project(fixture)();
      expect(request?.headers).toEqual({ authorization: 'Bearer tbk_key', 'x-site': 'bench-shop' });
      const path = (value: string | undefined) => value?.replace(/[0-9a-f-]{36}\/$/, '{id}/');
      expect(path(request?.path)).toBe(path(withToken?.project(fixture)().path));
    }
    const names = scenarios.map((scenario) => scenario.name);
    expect(names.indexOf('G1K')).toBeLessThan(names.indexOf('C1'));
  });

  it('reads the same private app-level secret in SE1, through the API and straight from the floor', () => {
    const se1 = scenarios.find((scenario) => scenario.name === 'SE1');
    expect(se1?.target).toBe(0.5);
    const project = se1?.project(fixture)();
    expect(project).toMatchObject({ method: 'GET', path: '/api/secrets/bench-token/?app=bench-app' });
    expect(project?.headers).toMatchObject({ authorization: 'Bearer token', 'x-site': 'bench-shop' });
    expect(se1?.floor(fixture)()).toEqual({
      method: 'GET',
      path: '/secrets/bench-shop/bench-app/bench-token',
    });
  });

  it('creates a different record with every C1 request', () => {
    const next = scenarios.find((scenario) => scenario.name === 'C1')?.project(fixture);
    const bodies = new Set(Array.from({ length: 5 }, () => next?.().body));
    expect(bodies.size).toBe(5);
  });

  it('creates a new user in the site with 0, 1 or 3 PRE_USER_CREATE subscribers in U0, U1, U3', () => {
    for (const [name, site] of [
      ['U0', 'bench-shop'],
      ['U1', 'bench-events-1'],
      ['U3', 'bench-events-3'],
    ] as const) {
      const next = scenarios.find((scenario) => scenario.name === name)?.project(fixture);
      const [first, second] = [next?.(), next?.()];
      expect(first).toMatchObject({ method: 'POST', path: '/api/cloud/users/' });
      expect(first?.headers).toMatchObject({ authorization: 'Bearer token', 'x-site': site });
      expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ password: 'secret' });
      expect(first?.body).not.toBe(second?.body);
    }
  });
});

describe('bench results', () => {
  const l1 = scenarios[0] as (typeof scenarios)[number];

  it('compares the mean throughput of each server with the target', () => {
    const result = summarize(l1, [
      run('project', 1, 80),
      run('floor', 1, 100),
      run('project', 2, 60),
      run('floor', 2, 100),
    ]);
    expect(result.ratio).toBeCloseTo(0.7);
    expect(result.met).toBe(true);
    expect(summarize(l1, [run('project', 1, 69), run('floor', 1, 100)]).met).toBe(false);
  });

  it('writes a report with the command, the ratios and the memory figures', () => {
    const results: BenchResults = {
      command: 'BENCH_RECORDS=2 npm run bench',
      date: '2026-01-01T00:00:00.000Z',
      settings: {
        records: 2,
        warmupSeconds: 1,
        durationSeconds: 1,
        connections: 10,
        poolSize: 10,
        rounds: 1,
      },
      machine: { cpu: 'CPU', cores: 2, memoryGb: 4, node: 'v20', postgres: '15.1', platform: 'linux x64' },
      load: fixture.load,
      scenarios: [summarize(l1, [run('project', 1, 35), run('floor', 1, 100)])],
      memory: {
        targetMb: 150,
        projectIdleMb: 100,
        projectLoadPeakMb: 140,
        projectRunPeakMb: 160,
        projectPeakReset: true,
        projectAfterRunsMb: 150,
        floorRunPeakMb: 60,
        met: false,
      },
    };
    const markdown = renderMarkdown(results);
    expect(markdown).toContain('Generated by `npm run bench`');
    expect(markdown).toContain('Command: `BENCH_RECORDS=2 npm run bench`');
    expect(markdown).toContain('| L1 | 35.0 | 100.0 | 0.350 | >= 0.7 | **not met** |');
    // Node CPU, then the database's (n/a where the database is not on this machine).
    expect(markdown).toContain('| project 1 | 35.0 | 1.0 | 2.0 | 0 | 0.50 | 0.25 | 200: 350 | 0.35 |');
    expect(markdown).toContain('| floor 1 | 100.0 | 1.0 | 2.0 | 0 | 0.50 | n/a | 200: 1000 |  |');
    expect(markdown).toContain(
      '| project, peak during the scenario runs the target applies to (VmHWM, reset before each scenario) | 160.0 |',
    );
  });
});

describe('bench process figures', () => {
  it('reads CPU time and memory of a process from /proc', () => {
    expect(cpuMillis(process.pid)).toBeGreaterThan(0);
    const figures = memory(process.pid);
    expect(figures.rssMb).toBeGreaterThan(1);
    expect(figures.peakMb).toBeGreaterThanOrEqual(figures.rssMb);
  });

  it("counts a database's CPU with its children's, those that have ended included", () => {
    // This process stands for the postmaster: a child that spends 200 ms of CPU and is reaped adds to it.
    const before = databaseCpuMillis(process.pid);
    execFileSync(process.execPath, [
      '-e',
      'const s = process.cpuUsage(); while ((process.cpuUsage(s).user + process.cpuUsage(s).system) < 200000);',
    ]);
    expect(databaseCpuMillis(process.pid) - before).toBeGreaterThanOrEqual(190);
  });

  it('finds the postmaster started with -p <port>, and nothing on a port no postgres uses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-postmaster-'));
    symlinkSync(process.execPath, join(dir, 'postgres'));
    writeFileSync(join(dir, 'idle.js'), 'process.stdout.write("up\\n"); setInterval(() => {}, 1000);');
    const child = spawn(join(dir, 'postgres'), [join(dir, 'idle.js'), '-p', '54987'], { stdio: 'pipe' });
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      expect(findPostmaster(54987)).toBe(child.pid);
      expect(findPostmaster(54986)).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
