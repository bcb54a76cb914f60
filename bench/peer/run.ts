import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmbeddedDynamoDb } from '../../shared/host/local/embedded-dynamodb';
import { type BenchConfig, loadBenchConfig } from '../config';
import { describeMachine } from '../machine';
import { measure, type RunResult, type ServerName } from '../measure';
import { openDatabase } from '../postgres';
import type { Server } from '../processes';
import type { BenchRequest } from '../scenarios';
import { scenarios } from '../scenarios';
import { withSection } from '../sections';
import { startFloor, startProject } from '../servers';
import { categories, type Fixture, prepareProject } from '../setup';
import { copyToPeerDatabase, databaseUrlOf } from './copy';
import { type Directus, type DirectusInstall, exposeItems, findDirectus, startDirectus } from './directus';
import { type Page, type PeerReport, pageMismatch, pageOf, renderPeerRegion } from './figures';

/**
 * `npm run bench:peer`: Q1's shape against the project, Directus and the floor on one PostgreSQL 15, alternated
 * for three rounds, written to the `peer` region of docs/benchmarks.md. Needs a Directus install directory
 * (BENCH_DIRECTUS_DIR); without one it says so and exits 0, so CI never runs it.
 */

const root = resolve(import.meta.dirname, '../..');
process.chdir(root);
const say = (line: string) => process.stdout.write(`${line}\n`);
const rounds = 3;
/** Q1 should be at least twice Directus's throughput. */
const target = 2;
/** Its own throwaway PostgreSQL, so it never meets `npm run bench` or the test suite. */
const peerInstance = { port: 55434, dir: '/tmp/platform-bench-peer-pg' };
const order: readonly ServerName[] = ['project', 'directus', 'floor'];

/** Q1 in Directus's query language: the project's `price DESC` with its `id` tiebreaker, page 2 of 25, the total. */
const directusQuery = [
  `filter[category][_eq]=${categories[3]}`,
  'filter[price][_gt]=500',
  'sort=-price,id',
  'limit=25',
  'offset=25',
  'meta=filter_count',
].join('&');

function commandLine(): string {
  const settings = Object.entries(process.env)
    .filter(([key]) => key.startsWith('BENCH_') || key === 'DATABASE_URL')
    .map(([key, value]) =>
      key === 'BENCH_DIRECTUS_DIR' || key === 'DATABASE_URL' ? `${key}=…` : `${key}=${value}`,
    );
  return [...settings, 'npm run bench:peer'].join(' ');
}

function uptime(): string {
  return execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/\s+/g, ' ');
}

type Requests = Record<ServerName, () => BenchRequest>;

function requestsFor(fixture: Fixture, directus: Directus, auth: 'public' | 'token'): Requests {
  const q1 = scenarios.find((scenario) => scenario.name === 'Q1');
  if (!q1) throw new Error('no Q1 scenario');
  const headers: Record<string, string> =
    auth === 'token' ? { authorization: `Bearer ${directus.token}` } : {};
  const directusRequest: BenchRequest = { method: 'GET', path: `/items/items?${directusQuery}`, headers };
  return { project: q1.project(fixture), directus: () => directusRequest, floor: q1.floor(fixture) };
}

/** Each server's answer to its request, compared: the bench stops when the pages differ. */
async function checkPages(servers: Record<ServerName, Server>, requests: Requests): Promise<Page> {
  const pages = {} as Record<ServerName, Page>;
  for (const name of order) {
    const request = requests[name]();
    const response = await fetch(`${servers[name].baseUrl}${request.path}`, { headers: request.headers });
    if (!response.ok)
      throw new Error(`${name} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    pages[name] = pageOf(await response.json());
  }
  const mismatch = pageMismatch(pages);
  if (mismatch) throw new Error(`the servers disagree on Q1's page: ${mismatch}`);
  return pages.project;
}

async function measureRounds(
  servers: Record<ServerName, Server>,
  requests: Requests,
  config: BenchConfig,
): Promise<RunResult[]> {
  const runs: RunResult[] = [];
  for (let round = 1; round <= rounds; round++)
    for (const name of order) {
      const run = await measure(
        {
          server: servers[name],
          next: requests[name],
          connections: config.connections,
          seconds: config.durationSeconds,
          warmupSeconds: config.warmupSeconds,
        },
        { server: name, round },
      );
      say(
        `  Q1 ${name} ${round}: ${run.requestsPerSecond.toFixed(1)} req/s, p99 ${run.p99Ms} ms, ${run.errors} errors`,
      );
      runs.push(run);
    }
  return runs;
}

/**
 * PostgreSQL, the project loaded through its API, the copy for Directus, the floor and Directus, in that order;
 * `stop` stops them all.
 */
async function startServers(install: DirectusInstall, config: BenchConfig) {
  say(`Directus ${install.version}; starting PostgreSQL 15 (port ${peerInstance.port})`);
  const database = await openDatabase(config.databaseUrl, peerInstance);
  const dynamo = await startEmbeddedDynamoDb();
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-peer-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const shared = { dataDir, dynamodbEndpoint: dynamo.url };
  const password = randomBytes(18).toString('base64url');
  const project = await startProject(database.url, config, password, shared);
  say(`Loading ${config.records} records through the project's bulk create`);
  const fixture = await prepareProject(project.baseUrl, database.url, password, config.records);
  say('Copying the table into database `directus` (psql \\copy)');
  const source = { schema: fixture.schema, table: fixture.physical };
  const indexes = await copyToPeerDatabase(database.url, source, 'directus');
  const floor = await startFloor(database.url, config, fixture, shared);
  say('Bootstrapping and starting Directus');
  const directusUrl = databaseUrlOf(database.url, 'directus');
  const directus = await startDirectus(install, directusUrl, join(dataDir, 'directus'));
  await exposeItems(directus);
  const stop = async () => {
    await Promise.all([project.stop(), floor.stop(), directus.stop()]);
    await dynamo.stop();
    database.stop();
  };
  return { servers: { project, directus, floor }, fixture, indexes, postgresVersion: database.version, stop };
}

/** Replaces the `peer` region of docs/benchmarks.md and writes bench/results/peer.json. */
function writeReport(report: PeerReport): void {
  const markdownPath = 'docs/benchmarks.md';
  const previous = existsSync(markdownPath) ? readFileSync(markdownPath, 'utf8') : '# Benchmarks\n';
  const region = renderPeerRegion(report);
  writeFileSync(markdownPath, withSection(previous, 'peer', region));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/peer.json', `${JSON.stringify(report, null, 2)}\n`);
  const ratios = region.split('\n').filter((line) => /^\| (project|Directus) \/ /.test(line));
  say(ratios.join('\n'));
  say('Wrote the peer region of docs/benchmarks.md and bench/results/peer.json');
}

async function main(): Promise<number> {
  const install = findDirectus(process.env.BENCH_DIRECTUS_DIR);
  if (typeof install === 'string') {
    say(`bench:peer skipped: ${install}. See docs/benchmarks.md ("Peer") for how to run it.`);
    return 0;
  }
  const auth = process.env.BENCH_DIRECTUS_AUTH === 'token' ? 'token' : 'public';
  const config = loadBenchConfig();
  const stopAfter = setTimeout(() => {
    process.stderr.write(`bench:peer: stopped after BENCH_TIMEOUT=${config.timeoutSeconds} s\n`);
    process.exit(1);
  }, config.timeoutSeconds * 1000);
  stopAfter.unref();

  const started = await startServers(install, config);
  const { servers, fixture } = started;
  const requests = requestsFor(fixture, servers.directus, auth);
  const page = await checkPages(servers, requests);
  say(`Same ${page.ids.length} ids in the same order and total ${page.total} on the three servers`);
  const before = uptime();
  const runs = await measureRounds(servers, requests, config);
  const after = uptime();
  await started.stop();

  writeReport({
    date: new Date().toISOString(),
    command: commandLine(),
    machine: describeMachine(started.postgresVersion),
    directusVersion: install.version,
    auth,
    records: config.records,
    settings: {
      connections: config.connections,
      poolSize: config.poolSize,
      warmupSeconds: config.warmupSeconds,
      durationSeconds: config.durationSeconds,
    },
    uptime: { before, after },
    requests: {
      project: requests.project().path.replace(fixture.app, '{app}'),
      directus: requests.directus().path,
      floor: requests.floor().path,
    },
    page,
    indexes: started.indexes,
    runs,
    target,
  });
  return 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    process.stderr.write(`bench:peer: ${signal}, stopping\n`);
    process.exit(130);
  });

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`bench:peer failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
