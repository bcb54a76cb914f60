// The embedded PostgreSQL (PGlite behind a socket) in a process of its own, a child of `npm start`: its WebAssembly
// heap is not the server's, and a slow statement never holds the server's event loop. Plain JavaScript, so that it
// runs on `node` alone, whatever loader the parent runs under. shared/host/local/embedded-postgres.ts starts it.
//
// Input: one argument, JSON: { dataDir?, template?, fsync?, port? } (template: the path of a data-directory dump).
// Output: one line of JSON on stdout, { "url": ... } once it listens, or { "error": ... } before exiting with 1.
// Life: it stops (closing PGlite, so the data directory is written out) when its standard input, a pipe only the
// server holds, closes — whenever the server's process ends, a kill -9 included — and on SIGTERM or SIGINT.
import { mkdirSync, openAsBlob } from 'node:fs';
import { createServer } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const options = JSON.parse(process.argv[2] ?? '{}');
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

/** A free TCP port on loopback. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

let db;
let server;
let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  // Past 20 s, a close that hangs is given up: the process exits anyway.
  setTimeout(() => process.exit(code || 1), 20_000).unref();
  try {
    await server?.stop();
    await db?.close();
  } catch (error) {
    process.stderr.write(`embedded PostgreSQL: closing failed: ${error?.message ?? error}\n`);
    code = 1;
  }
  process.exit(code);
}
process.stdin
  .on('end', () => stop(0))
  .on('close', () => stop(0))
  .on('error', () => stop(0))
  .resume();
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));

try {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // PGlite starts PostgreSQL with -F (fsync=off); `fsync: true` drops it (docs/local-runtime.md, "Durability").
  const startParams = options.fsync ? PGlite.defaultStartParams.filter((param) => param !== '-F') : undefined;
  db = await PGlite.create(options.dataDir, {
    ...(options.template ? { loadDataDir: await openAsBlob(options.template) } : {}),
    ...(startParams ? { startParams } : {}),
  });
  const port = options.port ?? (await freePort());
  server = new PGLiteSocketServer({ db, port, host: '127.0.0.1' });
  await server.start();
  if (!stopping) say({ url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres` });
} catch (error) {
  say({ error: error instanceof Error ? error.message : String(error) });
  await stop(1);
}
