/**
 * The bench's settings, read once from the environment so that a quick run is one command line away:
 * `BENCH_RECORDS=20000 BENCH_WARMUP=2 BENCH_DURATION=5 BENCH_SCENARIOS=L1,G1 npm run bench`.
 */
export interface BenchConfig {
  /** Records loaded through the API's bulk create before the runs. */
  readonly records: number;
  /** Records of the graph scenarios' forest (GR1-GR3), linked through the edges API. */
  readonly graphNodes: number;
  /** Seconds of load before each measured window (results discarded). */
  readonly warmupSeconds: number;
  /** Seconds of each measured window. */
  readonly durationSeconds: number;
  /** autocannon connections, and the database pool of both servers. */
  readonly connections: number;
  readonly poolSize: number;
  /** Measured runs per server and scenario, alternated project, floor, project, floor. */
  readonly rounds: number;
  /** Scenario names to run; all when absent. */
  readonly scenarios: readonly string[] | undefined;
  /** An existing PostgreSQL; a throwaway one is started when absent. */
  readonly databaseUrl: string | undefined;
  /** The whole bench stops itself after this many seconds. */
  readonly timeoutSeconds: number;
}

function positive(env: NodeJS.ProcessEnv, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${key} must be a positive number, got "${raw}"`);
  return value;
}

/** Reads the bench settings; malformed values stop the bench before anything starts. */
export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const scenarios = env.BENCH_SCENARIOS?.split(',')
    .map((name) => name.trim().toUpperCase())
    .filter(Boolean);
  return {
    records: Math.floor(positive(env, 'BENCH_RECORDS', 100_000)),
    graphNodes: Math.floor(positive(env, 'BENCH_GRAPH_NODES', 100_000)),
    warmupSeconds: positive(env, 'BENCH_WARMUP', 5),
    durationSeconds: positive(env, 'BENCH_DURATION', 15),
    connections: 10,
    poolSize: 10,
    rounds: 2,
    scenarios: scenarios && scenarios.length > 0 ? scenarios : undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    timeoutSeconds: positive(env, 'BENCH_TIMEOUT', 3600),
  };
}
