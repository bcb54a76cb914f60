import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmbeddedDynamoDb } from '../shared/host/local/embedded-dynamodb';
import { type BenchConfig, loadBenchConfig } from './config';
import { prepareGraph } from './graph-setup';
import { describeMachine } from './machine';
import { measure, type RunResult } from './measure';
import { openDatabase, settle } from './postgres';
import { memory, resetPeakMemory, type Server } from './processes';
import { graphLoadLine, renderSummary, writeResults } from './report';
import { type BenchResults, type MemoryResult, type ScenarioResult, summarize } from './results';
import { type Scenario, selectScenarios } from './scenarios';
import { type Shared, startFloor, startProject } from './servers';
import { type Fixture, prepareProject } from './setup';

/** `npm run bench`: the project against the floor, scenario by scenario; see docs/benchmarks.md. */

const root = resolve(import.meta.dirname, '..');
process.chdir(root);
/** The project server's resident memory under load, at most (MB). */
const rssTargetMb = 150;
const say = (line: string) => process.stdout.write(`${line}\n`);
function commandLine(): string {
  const settings = Object.entries(process.env)
    .filter(([key]) => key.startsWith('BENCH_') || key === 'DATABASE_URL')
    .map(([key, value]) => (key === 'DATABASE_URL' ? 'DATABASE_URL=…' : `${key}=${value}`));
  return [...settings, 'npm run bench'].join(' ');
}

/** Runs a scenario project, floor, project, floor … and returns every measured window. */
async function runScenario(
  scenario: Scenario,
  servers: { project: Server; floor: Server },
  fixture: Fixture,
  config: BenchConfig,
  postmaster: number | undefined,
): Promise<RunResult[]> {
  const runs: RunResult[] = [];
  for (let round = 1; round <= config.rounds; round++) {
    for (const name of ['project', 'floor'] as const) {
      const next = scenario[name](fixture);
      const run = await measure(
        {
          server: servers[name],
          next,
          connections: config.connections,
          seconds: config.durationSeconds,
          warmupSeconds: config.warmupSeconds,
          postmaster,
        },
        { server: name, round },
      );
      say(
        `  ${scenario.name} ${name} ${round}: ${run.requestsPerSecond.toFixed(1)} req/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ${run.errors} errors, ${run.cpuMsPerRequest.toFixed(2)} CPU ms/req, database ${run.databaseCpuMsPerRequest.toFixed(2)}`,
      );
      runs.push(run);
    }
  }
  return runs;
}

/** The servers' memory once the runs are over, with the figures taken before them. */
function memoryAfterRuns(
  project: Server,
  scenarios: readonly ScenarioResult[],
  before: Pick<MemoryResult, 'projectIdleMb' | 'projectLoadPeakMb' | 'projectPeakReset'>,
): MemoryResult {
  const after = memory(project.pid);
  const bound = scenarios.filter((scenario) => !scenario.outsideMemoryTarget);
  const runPeak = Math.max(...bound.map((scenario) => scenario.projectPeakMb));
  return {
    ...before,
    targetMb: rssTargetMb,
    projectRunPeakMb: runPeak,
    projectAfterRunsMb: after.rssMb,
    floorRunPeakMb: Math.max(...bound.map((scenario) => scenario.floorPeakMb)),
    met: runPeak <= rssTargetMb,
  };
}

/**
 * The records every scenario reads, loaded through the project's own bulk create, and the graph when a GR runs;
 * then the database is vacuumed and analyzed, so that no run meets autovacuum's first pass.
 */
async function loadFixture(
  project: Server,
  databaseUrl: string,
  password: string,
  config: BenchConfig,
  chosen: readonly Scenario[],
): Promise<Fixture> {
  say(`Project on ${project.baseUrl}; loading ${config.records} records through the bulk create`);
  const fixture = await prepareProject(project.baseUrl, databaseUrl, password, config.records);
  say(
    `Loaded at ${fixture.load.recordsPerSecond.toFixed(0)} records/s (${fixture.load.seconds.toFixed(1)} s)`,
  );
  let graph: Fixture['graph'];
  if (chosen.some((scenario) => scenario.name.startsWith('GR'))) {
    say(
      `Building the graph: ${config.graphNodes} records, a forest of trees and a DAG, through the edges API`,
    );
    graph = await prepareGraph(project.baseUrl, databaseUrl, fixture, config.graphNodes);
    say(graphLoadLine(graph.load));
  }
  const started = performance.now();
  await settle(databaseUrl);
  say(`VACUUM ANALYZE in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return graph ? { ...fixture, graph } : fixture;
}

/** Every chosen scenario, A/B alternated, with each server's memory peak during it. */
async function runScenarios(
  chosen: readonly Scenario[],
  servers: { project: Server; floor: Server },
  fixture: Fixture,
  config: BenchConfig,
  postmaster: number | undefined,
): Promise<ScenarioResult[]> {
  const results = [];
  for (const scenario of chosen) {
    say(`${scenario.name}: ${scenario.description}`);
    resetPeakMemory(servers.project.pid);
    resetPeakMemory(servers.floor.pid);
    const runs = await runScenario(scenario, servers, fixture, config, postmaster);
    const peaks = {
      projectPeakMb: memory(servers.project.pid).peakMb,
      floorPeakMb: memory(servers.floor.pid).peakMb,
    };
    results.push(summarize(scenario, runs, peaks));
  }
  return results;
}

async function main(): Promise<void> {
  const config = loadBenchConfig();
  const chosen = selectScenarios(config.scenarios);
  const stopAfter = setTimeout(() => {
    process.stderr.write(`bench: stopped after BENCH_TIMEOUT=${config.timeoutSeconds} s\n`);
    process.exit(1);
  }, config.timeoutSeconds * 1000);
  stopAfter.unref();

  say(
    config.databaseUrl
      ? 'Using DATABASE_URL'
      : 'Starting a throwaway PostgreSQL 15 (.ci/postgres.sh, port 55433)',
  );
  const database = await openDatabase(config.databaseUrl);
  const password = randomBytes(18).toString('base64url');
  // One DynamoDB for both servers, so SE1's floor reads the project's own secret item.
  const dynamo = await startEmbeddedDynamoDb();
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const shared: Shared = { dataDir, dynamodbEndpoint: dynamo.url };
  const project = await startProject(database.url, config, password, shared);
  const projectIdleMb = memory(project.pid).rssMb;
  const fixture = await loadFixture(project, database.url, password, config, chosen);
  const projectLoadPeakMb = memory(project.pid).peakMb;
  const projectPeakReset = resetPeakMemory(project.pid);
  const floor = await startFloor(database.url, config, fixture, shared);
  const results = await runScenarios(chosen, { project, floor }, fixture, config, database.postmaster);
  const memoryResult = memoryAfterRuns(project, results, {
    projectIdleMb,
    projectLoadPeakMb,
    projectPeakReset,
  });
  await Promise.all([project.stop(), floor.stop()]);
  await dynamo.stop();
  database.stop();

  const { records, warmupSeconds, durationSeconds, connections, poolSize, rounds } = config;
  const report: BenchResults = {
    command: commandLine(),
    date: new Date().toISOString(),
    settings: { records, warmupSeconds, durationSeconds, connections, poolSize, rounds },
    machine: describeMachine(database.version),
    load: fixture.load,
    ...(fixture.graph ? { graphLoad: fixture.graph.load } : {}),
    scenarios: results,
    memory: memoryResult,
  };
  writeResults(report, 'docs/benchmarks.md', 'bench/results/latest.json');
  say('');
  say(renderSummary(report));
  say('Wrote docs/benchmarks.md and bench/results/latest.json');
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    process.stderr.write(`bench: ${signal}, stopping\n`);
    // The exit handlers kill the servers and stop the throwaway database.
    process.exit(130);
  });

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
