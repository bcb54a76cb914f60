import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openAsBlob } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import type { EmbeddedService } from './embedded-dynamodb';
import { freePort } from './embedded-dynamodb';

export interface EmbeddedPostgresOptions {
  /** Keeps the data on disk; without it, in memory. */
  dataDir?: string;
  /** Starts from this data-directory dump (a Blob, or the path of the file) instead of running initdb. */
  loadDataDir?: Blob | string;
  port?: number;
  /** Drops PGlite's -F (fsync=off): bench/fsync.ts measures what it costs. */
  fsync?: boolean;
}

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) behind a socket on 127.0.0.1 in THIS process, so that the
 * `postgres` driver is the only SQL client the code has. PGlite serves one connection at a time: clients must use a
 * pool of one. Its WebAssembly heap then counts in this process's memory and its statements run on this event loop:
 * `npm start` uses `startEmbeddedPostgresChild` instead; the tests use this one (docs/local-runtime.md says why).
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedService & { db: PGlite }> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // PGlite starts PostgreSQL with -F (fsync=off). `fsync: true` drops it: bench/fsync.ts measures what it costs, and
  // docs/local-runtime.md ("Durability") says why the default stays (PGlite's Node.js file system never reaches the
  // disk's fsync either way).
  const startParams = options.fsync ? PGlite.defaultStartParams.filter((param) => param !== '-F') : undefined;
  const template =
    typeof options.loadDataDir === 'string' ? await openAsBlob(options.loadDataDir) : options.loadDataDir;
  const db = await PGlite.create(options.dataDir, {
    ...(template ? { loadDataDir: template } : {}),
    ...(startParams ? { startParams } : {}),
  });
  const port = options.port ?? (await freePort());
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1' });
  await server.start();
  return {
    db,
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** The child's entry: plain JavaScript, run by `node` without any loader. */
const childEntry = fileURLToPath(new URL('./postgres-child.mjs', import.meta.url));

/** How long a start may take before it is given up: initdb takes seconds on a slow machine; minutes are a hang. */
const startLimitMs = 180_000;
/** How long a stop waits for PGlite to write its data directory out before the child is killed. */
const stopLimitMs = 30_000;

/**
 * Starts PGlite behind its socket in a child process (shared/host/local/postgres-child.mjs): its WebAssembly heap
 * is not counted in the server's memory and a slow statement never blocks the server's event loop — the shape of
 * the cloud, where PostgreSQL is another machine. The child's life is tied to this process's the way the embedded
 * DynamoDB's is: it stops when its standard input, a pipe only this process holds, closes, which happens whenever
 * this process ends, a kill -9 included. `stop()` closes that pipe and waits for PGlite to close.
 */
export async function startEmbeddedPostgresChild(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedService & { pid: number }> {
  if (options.loadDataDir instanceof Blob)
    throw new Error('The embedded PostgreSQL child process takes its template as a file path, not a Blob');
  const input = {
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { template: options.loadDataDir } : {}),
    ...(options.fsync ? { fsync: true } : {}),
    ...(options.port ? { port: options.port } : {}),
  };
  // Its own process group, so that a Ctrl-C in the terminal reaches only the server, which stops PGlite after the
  // requests in flight are answered.
  const child: ChildProcess = spawn(process.execPath, [childEntry, JSON.stringify(input)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  // What it printed on stderr: for the error message; the last 4 KiB are enough.
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const done = (error: Error | undefined, url?: string) => {
      clearTimeout(deadline);
      child.stdout?.removeAllListeners('data');
      child.stderr?.removeAllListeners('data');
      child.removeAllListeners('error');
      child.removeAllListeners('exit');
      if (error) reject(error);
      else resolve(url as string);
    };
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      done(new Error(`Embedded PostgreSQL did not start within ${startLimitMs / 1000} s: ${output}`));
    }, startLimitMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += String(chunk);
      const line = stdout.split('\n', 2);
      if (line.length < 2) return;
      try {
        const message = JSON.parse(line[0] as string) as { url?: string; error?: string };
        if (message.url) done(undefined, message.url);
        else done(new Error(`Embedded PostgreSQL could not start: ${message.error} ${output}`.trim()));
      } catch {
        done(new Error(`Embedded PostgreSQL said something unexpected: ${line[0]}`));
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + String(chunk)).slice(-4096);
    });
    child.once('error', (error) => done(new Error(`Embedded PostgreSQL could not run: ${error.message}`)));
    child.once('exit', (code) =>
      done(new Error(`Embedded PostgreSQL exited with code ${code} while starting: ${output}`)),
    );
  });
  // Its output after start is not read: drain it so a full pipe never blocks it.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    url,
    pid: child.pid as number,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), stopLimitMs);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.stdin?.end();
      }),
  };
}
