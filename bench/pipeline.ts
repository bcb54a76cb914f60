import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registry } from '../functions/registry';
import { loadConfig } from '../shared/config';
import { toEvent } from '../shared/host/local/http-server';
import { startLocalPlatform } from '../shared/host/local/runtime';
import type { HttpEvent } from '../shared/http/handler';
import { openDatabase } from './postgres';
import { listQuery } from './scenarios';
import { type Fixture, itemRecord, prepareProject, tableName } from './setup';

/**
 * The whole request pipeline of G1 (get by id), L1 (a filtered page with its total) and C1 (create), in this process: the local server's event
 * translation (`toEvent`) and the local app's dispatch (routing, token, who and where, permission, validation, the
 * operation and its SQL, the response), on a throwaway PostgreSQL 15 of its own (port 55437). Ten requests are in
 * flight at a time, as in the bench; the figure is this process's CPU per request (`process.cpuUsage`), so PostgreSQL and the embedded DynamoDB,
 * separate processes, are not counted, and a machine shared with other work changes it less than a throughput.
 */

/** The few headers autocannon sends, plus the scenario's own: what `toEvent` translates on every request. */
export function benchHeaders(fixture: Pick<Fixture, 'token' | 'site'>, json: boolean) {
  return {
    host: '127.0.0.1:3000',
    connection: 'keep-alive',
    authorization: `Bearer ${fixture.token}`,
    'x-site': fixture.site,
    ...(json ? { 'content-type': 'application/json', 'content-length': '120' } : {}),
  };
}

/** The fields of an IncomingMessage that `toEvent` reads. */
export function fakeRequest(method: string, url: string, headers: Record<string, string>): IncomingMessage {
  return {
    method,
    url,
    headers,
    httpVersion: '1.1',
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

/**
 * Rounds per case: the figure is the cheapest round's, the one least disturbed by other work on a shared machine
 * (contention only ever adds CPU time: cache misses, migrations between cores).
 */
const rounds = 5;

/** Connections in flight, as the bench's autocannon keeps them. */
const connections = 10;

/** Runs `count` requests with `connections` of them in flight at a time. */
async function inFlight(count: number, once: (n: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await once(next++);
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

/**
 * STEPS_PROFILE=<dir> writes a V8 CPU profile of each measured loop (and of nothing else) to that directory, for
 * `npx tsx bench/profile-summary.ts <file>`.
 */
async function startProfile() {
  const dir = process.env.STEPS_PROFILE;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  return {
    stop: async (label: string) => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `steps-${label}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

export interface PipelineStep {
  name: string;
  microseconds: number;
}

/** Starts the platform in this process, loads a small fixture and measures G1, L1 and C1 end to end. */
export async function measurePipeline(ops: number): Promise<PipelineStep[]> {
  const database = await openDatabase(undefined, { port: 55437, dir: '/tmp/platform-steps-pg' });
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-steps-'));
  const password = randomBytes(18).toString('base64url');
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '10',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.STEPS_LOG_LEVEL ?? 'warn',
    ADMIN_PASSWORD: password,
  });
  const platform = await startLocalPlatform(config, registry, { persist: false });
  try {
    const fixture = await prepareProject(platform.baseUrl, database.url, password, 1000);
    const path = `/api/apps/${fixture.app}/datatables/${tableName}/data/`;
    const getHeaders = benchHeaders(fixture, false);
    const postHeaders = benchHeaders(fixture, true);
    const empty = Buffer.alloc(0);
    let created = 10_000_000;
    const cases: { name: string; event: (n: number) => HttpEvent; status: number }[] = [
      {
        name: 'pipeline: G1 get by id (toEvent + dispatch)',
        event: (n) =>
          toEvent(fakeRequest('GET', `${path}${fixture.ids[n % fixture.ids.length]}/`, getHeaders), empty),
        status: 200,
      },
      {
        name: 'pipeline: L1 list, filter + page 2 + total (toEvent + dispatch)',
        event: () => toEvent(fakeRequest('GET', `${path}?${listQuery}`, getHeaders), empty),
        status: 200,
      },
      {
        name: 'pipeline: C1 create one (toEvent + dispatch)',
        event: () =>
          toEvent(fakeRequest('POST', path, postHeaders), Buffer.from(JSON.stringify(itemRecord(created++)))),
        status: 201,
      },
    ];
    const results: PipelineStep[] = [];
    for (const { name, event, status } of cases) {
      const once = async (n: number) => {
        const response = await platform.dispatch(event(n));
        if (response.statusCode !== status)
          throw new Error(`${name}: expected ${status}, got ${response.statusCode} ${response.body}`);
      };
      await inFlight(ops / 10, once);
      const profiler = await startProfile();
      const perRound: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const before = process.cpuUsage();
        await inFlight(ops / rounds, once);
        const used = process.cpuUsage(before);
        perRound.push((used.user + used.system) / (ops / rounds));
      }
      await profiler?.stop(name.split(' ')[1] ?? 'pipeline');
      results.push({ name, microseconds: Math.min(...perRound) });
    }
    return results;
  } finally {
    await platform.stop();
    database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
