import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, type Server, startProbedServer } from '../processes';

/**
 * Directus for the peer figure: an install directory the user provides (`npm install directus@12.4.0` in a
 * folder outside the project), bootstrapped on its own database and started with the settings that make the
 * comparison fair: a pool of 10 like the other servers, no cache, no rate or pressure limiter, no websockets, no
 * telemetry.
 */

const run = promisify(execFile);

export interface DirectusInstall {
  readonly cli: string;
  readonly version: string;
}

/** The Directus CLI and version of an install directory, or why it cannot be used. */
export function findDirectus(dir: string | undefined): DirectusInstall | string {
  if (!dir) return 'BENCH_DIRECTUS_DIR is not set';
  const manifest = join(dir, 'node_modules', 'directus', 'package.json');
  if (!existsSync(manifest)) return `${manifest} not found (run \`npm install directus@12.4.0\` in ${dir})`;
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { cli: join(dir, 'node_modules', 'directus', 'cli.js'), version };
}

/** A running Directus and the static token of its admin (never printed). */
export interface Directus extends Server {
  readonly token: string;
}

function directusEnv(databaseUrl: string, port: number, workDir: string, token: string) {
  const db = new URL(databaseUrl);
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DB_CLIENT: 'pg',
    DB_HOST: db.hostname,
    DB_PORT: db.port || '5432',
    DB_DATABASE: decodeURIComponent(db.pathname.slice(1)),
    DB_USER: decodeURIComponent(db.username),
    DB_PASSWORD: decodeURIComponent(db.password),
    DB_POOL__MAX: '10',
    KEY: randomBytes(16).toString('hex'),
    SECRET: randomBytes(32).toString('base64url'),
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: randomBytes(18).toString('base64url'),
    ADMIN_TOKEN: token,
    TELEMETRY: 'false',
    LOG_LEVEL: 'warn',
    LOG_STYLE: 'raw',
    CACHE_ENABLED: 'false',
    RATE_LIMITER_ENABLED: 'false',
    // Its pressure limiter answers 503 once its event loop lags: under the bench's load that is shed work, not an
    // answer, and the other servers have none.
    PRESSURE_LIMITER_ENABLED: 'false',
    WEBSOCKETS_ENABLED: 'false',
    STORAGE_LOCATIONS: 'local',
    STORAGE_LOCAL_ROOT: join(workDir, 'uploads'),
    EXTENSIONS_PATH: join(workDir, 'extensions'),
  };
}

/** Bootstraps Directus on `databaseUrl` (system tables, admin with a static token), then starts it. */
export async function startDirectus(
  install: DirectusInstall,
  databaseUrl: string,
  workDir: string,
): Promise<Directus> {
  for (const sub of ['uploads', 'extensions']) mkdirSync(join(workDir, sub), { recursive: true });
  const port = await freePort();
  const token = randomBytes(24).toString('base64url');
  const env = directusEnv(databaseUrl, port, workDir, token);
  await run(process.execPath, [install.cli, 'bootstrap'], { cwd: workDir, env, timeout: 300_000 });
  const baseUrl = `http://127.0.0.1:${port}`;
  const ping = async () => (await fetch(`${baseUrl}/server/ping`)).ok;
  const server = await startProbedServer(
    'directus',
    { file: process.execPath, args: [install.cli, 'start'], cwd: workDir, env },
    baseUrl,
    ping,
  );
  return { ...server, token };
}

async function call(directus: Directus, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${directus.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${directus.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Directus ${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Tracks the copied table as a collection and lets the public policy read and create its items (L1, G1, Q1 read,
 * C1 creates). The table exists already, so the collection is registered with PATCH (a POST answers "Collection
 * items already exists").
 */
export async function exposeItems(directus: Directus): Promise<void> {
  await call(directus, 'PATCH', '/collections/items', { meta: {} });
  const access = (await call(
    directus,
    'GET',
    '/access?filter[role][_null]=true&filter[user][_null]=true&fields=policy',
  )) as { data: { policy: string }[] };
  const policy = access.data[0]?.policy;
  if (!policy) throw new Error('Directus has no public policy');
  for (const action of ['read', 'create'])
    await call(directus, 'POST', '/permissions', {
      policy,
      collection: 'items',
      action,
      fields: ['*'],
      permissions: {},
      validation: {},
    });
}
