import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log';
import type { Sql } from '../../shared/sql/client';
import { prepareDatabase } from '../../shared/sql/login-role';
import { expectedSchemaVersion } from '../../shared/sql/schema-version';
import { tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * The request path against a database the migration step has not prepared: the data function answers 503 and
 * runs no DDL (the schema it would have created stays missing); once the step has run, it serves, and it checks
 * the version once per container. The health check reads the version on every call.
 */

let platform: TestPlatform;
let tenant: Tenant;
let sql: Sql;
const errors: { message: string; fields: Record<string, unknown> }[] = [];

function recordingLogger(base: Record<string, unknown> = {}): Logger {
  const ignore = () => {};
  return {
    debug: ignore,
    info: ignore,
    warn: ignore,
    error: (message, fields) => errors.push({ message, fields: { ...base, ...fields } }),
    child: (fields) => recordingLogger({ ...base, ...fields }),
  };
}

beforeAll(async () => {
  platform = await startTestPlatform({}, { log: recordingLogger() });
  tenant = await createTenant(platform);
  sql = platform.deps.sql();
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

const platformSchemaExists = async () => {
  const [row] = await sql`SELECT to_regnamespace('platform') IS NOT NULL AS present`;
  return row?.present;
};

describe('a data request on a database behind the code', () => {
  it('answers 503 with a clear message, logs it, and runs no migration', async () => {
    // The platform's start migrated; take the database back to before the migration step ever ran.
    await sql`DROP SCHEMA platform CASCADE`;
    const response = await tenant.owner.get(tablesPath(tenant.app.slug));
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      error: 'Service unavailable',
      detail: expect.stringContaining('migrations have not been applied'),
    });
    // The first request of this container would have re-created it had the handler migrated.
    expect(await platformSchemaExists()).toBe(false);
    expect(errors).toContainEqual({
      message: 'database schema is behind the code: run the migration step',
      fields: expect.objectContaining({ expected_version: expectedSchemaVersion, applied_version: 0 }),
    });
  });

  it('reports the schema in the health check', async () => {
    const response = await platform.api.get('/health');
    expect(response.status).toBe(503);
    expect(response.body.checks.postgres).toEqual({
      status: 'error',
      error: 'postgres schema is behind the code',
    });
  });

  it('answers 503 when a migration is missing, checking again on each request while behind', async () => {
    await prepareDatabase(sql, { user: 'platform_app_schema_test', password: 'schema-test-password' });
    await sql`DELETE FROM platform.schema_migrations WHERE version = ${expectedSchemaVersion}`;
    const response = await tenant.owner.get(tablesPath(tenant.app.slug));
    expect(response.status).toBe(503);
    const [row] = await sql`SELECT count(*)::int AS n FROM platform.schema_migrations
      WHERE version = ${expectedSchemaVersion}`;
    expect(row?.n).toBe(0);
    expect(errors.at(-1)?.fields).toMatchObject({
      expected_version: expectedSchemaVersion,
      applied_version: expect.any(Number),
    });
  });

  it('serves once the migration step has run, without restarting the container', async () => {
    expect(await prepareDatabase(sql, { user: 'platform_app_schema_test', password: 'again' })).toEqual([
      expectedSchemaVersion,
    ]);
    const response = await tenant.owner.get(tablesPath(tenant.app.slug));
    expect(response.status).toBe(200);
    expect((await platform.api.get('/health')).status).toBe(200);
  });

  it('checks the version once per container: a passed check is not repeated', async () => {
    await sql`DELETE FROM platform.schema_migrations WHERE version = ${expectedSchemaVersion}`;
    expect((await tenant.owner.get(tablesPath(tenant.app.slug))).status).toBe(200);
    // The health check, unlike the request path, reads the version every time.
    expect((await platform.api.get('/health')).status).toBe(503);
  });
});
