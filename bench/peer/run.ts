import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withSection } from '../../bin/doc-sections';
import { startEmbeddedDynamoDb } from '../../shared/host/local/embedded-dynamodb';
import { type BenchConfig, loadBenchConfig } from '../config';
import { describeMachine } from '../machine';
import { measure, type RunResult, type ServerName } from '../measure';
import { openDatabase } from '../postgres';
import type { Server } from '../processes';
import { type BenchRequest, projectHeaders } from '../scenarios';
import { startFloor, startProject } from '../servers';
import { type Fixture, prepareProject } from '../setup';
import { copyToPeerDatabase, databaseUrlOf } from './copy';
import { type DirectusInstall, exposeItems, findDirectus, startDirectus } from './directus';
import {
  type Page,
  type PeerReport,
  type PeerScenarioReport,
  pageMismatch,
  pageOf,
  renderPeerRegion,
} from './figures';
import {
  checkedSentence,
  createdMismatch,
  genericPath,
  type PeerScenario,
  type PeerScenarioName,
  peerRequest,
  type RecordFields,
  randomSources,
  recordMismatch,
  recordOf,
  recordPath,
  type Sources,
  selectPeerScenarios,
} from './requests';

/**
 * `npm run bench:peer`: L1, G1, C1 and Q1 against the project, Directus and the floor on one PostgreSQL 15,
 * alternated for three rounds per scenario, written to the `peer` region of docs/benchmarks.md. Before each
 * scenario's runs the three servers must answer the same thing (same page and total, same record, a create read
 * back). BENCH_SCENARIOS=L1,G1 runs some of them. Needs a Directus install directory (BENCH_DIRECTUS_DIR); without
 * one it says so and exits 0, so CI never runs it.
 */

const root = resolve(import.meta.dirname, '../..');
process.chdir(root);
const say = (line: string) => process.stdout.write(`${line}\n`);
const rounds = 3;
/** Its own throwaway PostgreSQL, so it never meets `npm run bench` or the test suite. */
const peerInstance = { port: 55434, dir: '/tmp/platform-bench-peer-pg' };
const order: readonly ServerName[] = ['project', 'directus', 'floor'];

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

type Servers = Record<ServerName, Server>;
type Requests = Record<ServerName, () => BenchRequest>;

/** The request builders of one scenario on each server, from `sources` (random while measuring). */
function requestsFor(
  scenario: PeerScenarioName,
  fixture: Fixture,
  directusHeaders: Record<string, string>,
  sources: (server: ServerName) => Sources,
): Requests {
  const of = (server: ServerName) => peerRequest(scenario, server, fixture, sources(server), directusHeaders);
  return { project: of('project'), directus: of('directus'), floor: of('floor') };
}

async function send(server: Server, request: BenchRequest): Promise<unknown> {
  const response = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  if (!response.ok)
    throw new Error(
      `${server.name} ${request.method} ${request.path} answered ${response.status}: ${text.slice(0, 300)}`,
    );
  return JSON.parse(text);
}

/**
 * Asks each server the scenario's question with the same key or the same kind of body and compares the answers;
 * the bench stops when they differ. Returns the sentence the region shows.
 */
async function check(
  scenario: PeerScenario,
  servers: Servers,
  fixture: Fixture,
  directusHeaders: Record<string, string>,
): Promise<string> {
  const id = fixture.ids[Math.floor(fixture.ids.length / 2)] as string;
  let next = 2_000_000_000;
  const fixedSources = (): Sources => ({ id: () => id, record: () => next++ });
  const requests = requestsFor(scenario.name, fixture, directusHeaders, fixedSources);
  if (scenario.check === 'page') {
    const pages = {} as Record<ServerName, Page>;
    for (const name of order) pages[name] = pageOf(await send(servers[name], requests[name]()));
    const mismatch = pageMismatch(pages);
    if (mismatch) throw new Error(`the servers disagree on ${scenario.name}'s page: ${mismatch}`);
    return checkedSentence('page', { ids: pages.project.ids.length, total: pages.project.total });
  }
  if (scenario.check === 'record') {
    const records = {} as Record<ServerName, RecordFields>;
    for (const name of order) records[name] = recordOf(await send(servers[name], requests[name]()));
    const mismatch = recordMismatch(records);
    if (mismatch) throw new Error(`the servers disagree on ${scenario.name}'s record ${id}: ${mismatch}`);
    return checkedSentence('record', {});
  }
  for (const name of order) {
    const request = requests[name]();
    const sent = JSON.parse(request.body ?? '{}') as Record<string, unknown>;
    const created = recordOf(await send(servers[name], request));
    const readBack = recordOf(
      await send(servers[name], {
        method: 'GET',
        path: recordPath(name, fixture, created.id),
        headers:
          name === 'project' ? projectHeaders(fixture) : name === 'directus' ? directusHeaders : undefined,
      }),
    );
    const mismatch = createdMismatch(recordOf({ ...sent, id: 'sent' }), created, readBack);
    if (mismatch) throw new Error(`${name}'s ${scenario.name}: ${mismatch}`);
  }
  return checkedSentence('create', {});
}

async function measureRounds(
  scenario: PeerScenario,
  servers: Servers,
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
        `  ${scenario.name} ${name} ${round}: ${run.requestsPerSecond.toFixed(1)} req/s, p99 ${run.p99Ms} ms, ${run.errors} errors`,
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
  const summary = region.split('\n').filter((line) => /^\| (scenario|[A-Z]+\d) \|/.test(line));
  say(summary.join('\n'));
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

  const selected = selectPeerScenarios(config.scenarios);
  const started = await startServers(install, config);
  const { servers, fixture } = started;
  const directusHeaders: Record<string, string> =
    auth === 'token' ? { authorization: `Bearer ${servers.directus.token}` } : {};
  const before = uptime();
  const reports: PeerScenarioReport[] = [];
  for (const scenario of selected) {
    const checked = await check(scenario, servers, fixture, directusHeaders);
    say(`${scenario.name}: checked, ${checked}`);
    const requests = requestsFor(scenario.name, fixture, directusHeaders, () => randomSources(fixture));
    const runs = await measureRounds(scenario, servers, requests, config);
    const shown = (name: ServerName) => genericPath(requests[name]().path, fixture.app);
    reports.push({
      name: scenario.name,
      description: scenario.description,
      target: scenario.target,
      requests: {
        project: shown('project'),
        directus: shown('directus'),
        floor: shown('floor'),
      },
      checked,
      runs,
    });
  }
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
      rounds,
    },
    uptime: { before, after },
    indexes: started.indexes,
    scenarios: reports,
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
