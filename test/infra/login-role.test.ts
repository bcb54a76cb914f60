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
