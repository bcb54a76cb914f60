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
  options: { dataDir?: string; loadDataDir?: Blob; port?: number } = {},
): Promise<EmbeddedService & { db: PGlite }> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(
    options.dataDir,
    options.loadDataDir ? { loadDataDir: options.loadDataDir } : {},
  );
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
