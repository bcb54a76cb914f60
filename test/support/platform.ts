import { randomBytes } from 'node:crypto';
import { mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { inject } from 'vitest';
import { registry } from '../../functions/registry';
import type { DepsOverrides } from '../../shared/compose/compose';
import { loadConfig } from '../../shared/config';
import { type LocalPlatform, startLocalPlatform } from '../../shared/host/local/runtime';
import { ApiClient } from './client';

export const adminPassword = 'Granite-Owl-Parade-61';

export interface TestPlatform extends LocalPlatform {
  /** An anonymous client. */
  api: ApiClient;
  /** A client signed in as the bootstrap superuser. */
  admin: LocalPlatform['admin'] & {};
  adminApi: ApiClient;
}

/** A private database per test file on a shared real PostgreSQL, so files never see each other's schemas. */
export async function privateDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  // No named prepared statements: the URL may be a transaction-pooling proxy's (CI's PgBouncer pass).
  const admin = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * The environment that points a platform at `url` (none: the embedded PGlite), with DATABASE_PROXY=true when the
 * run's database is a transaction-pooling proxy (CI's PgBouncer pass).
 */
export function databaseEnv(url: string | undefined): Record<string, string> {
  if (!url) return {};
  // Behind the pooler, more client connections than a test ever runs statements at once (16 were too few for the
  // security matrix, 14 requests at once): the driver pipelines a statement onto a busy connection only when all are
  // busy, and PgBouncer 1.18 loses a statement's Describe sent behind another's finished transaction
  // (docs/deploying.md, "What pins an RDS Proxy session"). The pooler still serves them all from its two server
  // connections. A test's own DATABASE_POOL_SIZE wins.
  return {
    DATABASE_URL: url,
    ...(inject('databaseProxy') ? { DATABASE_PROXY: 'true', DATABASE_POOL_SIZE: '64' } : {}),
  };
}

export interface TestPlatformOptions {
  /**
   * `false` for a file whose tests never reach the data plane (PostgreSQL): no PGlite starts (seconds of CPU per
   * file) and CI's PostgreSQL pass leaves the file out (.ci/postgres-files.mjs). A route that needs SQL then
   * answers 500, so a wrong `false` fails loudly.
   */
  dataPlane?: boolean;
}

/** The PGlite template as a Blob read from disk on demand (no copy of the 40 MB dump in a Buffer first). */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  const template = inject('pgliteTemplate');
  return template ? await openAsBlob(template) : undefined;
}

/**
 * Starts the whole platform in this test file's process, on the real local stores: its own DynamoDB table on the
 * shared embedded DynamoDB, and its own PostgreSQL (a PGlite from the template, or a private database).
 */
export async function startTestPlatform(
  env: Record<string, string> = {},
  overrides: DepsOverrides = {},
  options: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const dataPlane = options.dataPlane ?? true;
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-test-'));
  const sharedUrl = dataPlane ? inject('databaseUrl') : undefined;
  const database = sharedUrl ? await privateDatabase(sharedUrl) : undefined;
  const template = dataPlane ? await pgliteTemplate() : undefined;
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TABLE_NAME: `test-${randomBytes(6).toString('hex')}`,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: adminPassword,
    ...databaseEnv(database?.url),
    ...env,
  });
  const platform = await startLocalPlatform(config, registry, {
    persist: false,
    overrides,
    dataPlane,
    // In this process: a child would cost each file more CPU for its start (measured: docs/local-runtime.md).
    postgresProcess: 'in-process',
    ...(template ? { postgresTemplate: template } : {}),
  });
  if (!platform.admin) throw new Error('The test platform did not create its superuser');
  const api = new ApiClient(platform.baseUrl);
  const adminApi = await api.login('admin', adminPassword);
  return {
    ...platform,
    admin: platform.admin,
    api,
    adminApi,
    stop: async () => {
      await platform.stop();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
