import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../shared/sql/client';
import { prepareDatabase } from '../../shared/sql/login-role';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The deploy-time database step against the test PostgreSQL (PGlite, or DATABASE_URL): it creates the login
 * role without superuser powers and leaves the platform's schemas and tables owned by it.
 */
let platform: TestPlatform;
let sql: Sql;

beforeAll(async () => {
  platform = await startTestPlatform();
  sql = platform.deps.sql();
}, 120_000);
afterAll(async () => {
  await platform?.stop();
});

describe('prepareDatabase', () => {
  it('creates a login role with no superuser, role or database creation, owning the platform schema', async () => {
    const login = { user: 'platform_app_test', password: "it's-secret" };
    await prepareDatabase(sql, login);
    const [role] = await sql`SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles
      WHERE rolname = ${login.user}`;
    expect(role).toEqual({ rolcanlogin: true, rolsuper: false, rolcreaterole: false, rolcreatedb: false });
    const owners = await sql`SELECT DISTINCT pg_get_userbyid(c.relowner) AS owner FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'platform' AND c.relkind = 'r'`;
    expect(owners).toEqual([{ owner: login.user }]);
    const [schema] =
      await sql`SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'platform'`;
    expect(schema?.owner).toBe(login.user);
    const [back] = await sql`SELECT current_user AS name`;
    expect(back?.name).not.toBe(login.user);
  });

  it('is safe to run again: the role gets its new password and nothing is applied twice', async () => {
    const login = { user: 'platform_app_test', password: 'second-password' };
    expect(await prepareDatabase(sql, login)).toEqual([]);
  });
});

/** The session defaults a role has in this database (ALTER ROLE ... IN DATABASE ... SET). */
async function defaultsOf(role: string): Promise<Record<string, string>> {
  const rows = await sql<{ entry: string }[]>`SELECT unnest(s.setconfig) AS entry FROM pg_db_role_setting s
    WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = ${role})
      AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  return Object.fromEntries(
    rows.map(({ entry }) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

describe('the session settings', () => {
  it('are the defaults of the app, health and migration roles in this database, never sent at connect', async () => {
    const login = { user: 'platform_app_test', password: 'fourth-password' };
    const health = { user: 'platform_health_test', password: 'health-password' };
    await prepareDatabase(sql, login, { health, statementTimeoutMs: 8000 });
    const expected = {
      statement_timeout: '8000',
      TimeZone: 'UTC',
      DateStyle: 'ISO, MDY',
      application_name: 'platform',
    };
    expect(await defaultsOf(login.user)).toEqual(expected);
    expect(await defaultsOf(health.user)).toEqual(expected);
    const [me] = await sql<{ name: string }[]>`SELECT current_user AS name`;
    expect(await defaultsOf(me?.name as string)).toEqual(expected);
  });
});

describe('the health login', () => {
  it('may read the applied migration version and nothing else: no site schema, no CREATE', async () => {
    const login = { user: 'platform_app_test', password: 'third-password' };
    const health = { user: 'platform_health_test', password: 'health-password' };
    await prepareDatabase(sql, login, { health, lockTimeoutMs: 5000 });
    const [role] = await sql`SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles
      WHERE rolname = ${health.user}`;
    expect(role).toEqual({ rolcanlogin: true, rolsuper: false, rolcreaterole: false, rolcreatedb: false });
    const [rights] = await sql`SELECT
        has_table_privilege(${health.user}, 'platform.schema_migrations', 'SELECT') AS reads_version,
        has_table_privilege(${health.user}, 'platform.schema_migrations', 'INSERT') AS writes_version,
        has_database_privilege(${health.user}, current_database(), 'CREATE') AS creates_schemas,
        has_schema_privilege(${health.user}, 'platform', 'CREATE') AS creates_in_platform`;
    expect(rights).toEqual({
      reads_version: true,
      writes_version: false,
      creates_schemas: false,
      creates_in_platform: false,
    });
    // Every other relation of the platform's schemas stays out of reach.
    const readable = await sql`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND pg_get_userbyid(c.relowner) = ${login.user}
        AND has_table_privilege(${health.user}, c.oid, 'SELECT')`;
    expect(readable.map((row) => row.relname)).toEqual(['schema_migrations']);
  });
});
