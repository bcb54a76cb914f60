import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { EmbeddedService } from './embedded-dynamodb';
import { freePort } from './embedded-dynamodb';

/**
 * Starts PGlite (PostgreSQL compiled to WebAssembly) behind a socket on 127.0.0.1, so that the `postgres` driver is
 * the only SQL client the code has. PGlite serves one connection at a time: clients must use a pool of one.
 * `dataDir` keeps the data on disk; `loadDataDir` starts from a dump (tests initialise once, then copy).
 */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; loadDataDir?: Blob; port?: number; fsync?: boolean } = {},
): Promise<EmbeddedService & { db: PGlite }> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // PGlite starts PostgreSQL with -F (fsync=off). `fsync: true` drops it: bench/fsync.ts measures what it costs, and
  // docs/local-runtime.md ("Durability") says why the default stays (PGlite's Node.js file system never reaches the
  // disk's fsync either way).
  const startParams = options.fsync ? PGlite.defaultStartParams.filter((param) => param !== '-F') : undefined;
  const db = await PGlite.create(options.dataDir, {
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
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
