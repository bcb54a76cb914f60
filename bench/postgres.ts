import { execFileSync } from 'node:child_process';
import postgres from 'postgres';
import { findPostmaster } from './processes';

/**
 * The PostgreSQL of a bench: `DATABASE_URL` when given, otherwise a throwaway PostgreSQL 15 started by the CI
 * script (`.ci/postgres.sh`) on its own port and directory, so it never meets the test suite's instance.
 */

export interface BenchDatabase {
  readonly url: string;
  readonly version: string;
  /** Its postmaster's pid when it runs on this machine (its CPU is then measured), else undefined. */
  readonly postmaster: number | undefined;
  stop(): void;
}

/** The postmaster of a database URL that points at this machine, if it can be found. */
function localPostmaster(url: string): number | undefined {
  const { hostname, port } = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostname)) return undefined;
  return findPostmaster(Number(port || 5432));
}

const script = '.ci/postgres.sh';
/** Port and directory of the throwaway instance; the peer run (bench/peer/) takes its own. */
const benchInstance = { port: 55433, dir: '/tmp/platform-bench-pg' };

/** Starts (or adopts) the database and reads its server version. */
export async function openDatabase(
  databaseUrl: string | undefined,
  instance: { port: number; dir: string } = benchInstance,
): Promise<BenchDatabase> {
  const scriptEnv = { ...process.env, PG_PORT: String(instance.port), PG_DIR: instance.dir };
  let url = databaseUrl;
  let stop = () => {};
  if (!url) {
    const printed = execFileSync('bash', [script, 'start'], { env: scriptEnv, encoding: 'utf8' });
    url = printed.trim().split('\n').at(-1) ?? '';
    let stopped = false;
    stop = () => {
      if (stopped) return;
      stopped = true;
      execFileSync('bash', [script, 'stop'], { env: scriptEnv, stdio: 'ignore' });
    };
    // A bench that dies on an error still removes its database.
    process.on('exit', stop);
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`SHOW server_version`;
    return { url, version: String(row?.server_version ?? 'unknown'), postmaster: localPostmaster(url), stop };
  } finally {
    await sql.end();
  }
}

/**
 * `VACUUM ANALYZE` of the whole database once the fixture is loaded: every run then meets the tables as autovacuum
 * would leave them (statistics, visibility map). Left to autovacuum, its first pass over the freshly loaded table
 * lands in the middle of a scenario's alternation, and whichever server runs after it looks several times faster.
 */
export async function settle(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`VACUUM ANALYZE`;
  } finally {
    await sql.end();
  }
}
