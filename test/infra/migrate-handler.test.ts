import { readFileSync } from 'node:fs';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { handler } from '../../functions/migrate/handler';
import { startEmbeddedPostgres } from '../../shared/host/local/embedded-postgres';
import { createSql } from '../../shared/sql/client';
import { migrations } from '../../shared/sql/migrations';
import { appliedSchemaVersion, expectedSchemaVersion } from '../../shared/sql/schema-version';
import { privateDatabase } from '../support/platform';

/**
 * The deploy-time migration Lambda's entry point, its secrets from a mocked Secrets Manager, against a fresh
 * database (a PGlite from the test template, or a private database on DATABASE_URL): it applies every migration,
 * the request path's version check then passes, and a second run applies nothing.
 */
const secrets = mockClient(SecretsManagerClient);
const masterArn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:master-abc';
const loginArn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:login-def';
const login = { username: 'platform_app_migrate_test', password: "login's-password" };
let url: URL;
let stop: () => Promise<void>;

beforeAll(async () => {
  const shared = inject('databaseUrl');
  if (shared) {
    const database = await privateDatabase(shared);
    url = new URL(database.url);
    stop = database.drop;
  } else {
    const template = inject('pgliteTemplate');
    const postgres = await startEmbeddedPostgres(
      template ? { loadDataDir: new Blob([readFileSync(template)]) } : {},
    );
    url = new URL(postgres.url);
    stop = postgres.stop;
  }
  const master = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  secrets
    .on(GetSecretValueCommand, { SecretId: masterArn })
    .resolves({ SecretString: JSON.stringify(master) })
    .on(GetSecretValueCommand, { SecretId: loginArn })
    .resolves({ SecretString: JSON.stringify(login) });
  vi.stubEnv('MASTER_SECRET_ARN', masterArn);
  vi.stubEnv('LOGIN_SECRET_ARN', loginArn);
  vi.stubEnv('DATABASE_HOST', url.hostname);
  vi.stubEnv('DATABASE_PORT', url.port || '5432');
  vi.stubEnv('DATABASE_NAME', url.pathname.slice(1));
  vi.stubEnv('DATABASE_SSL', 'disable');
}, 120_000);
afterAll(async () => {
  vi.unstubAllEnvs();
  secrets.restore();
  await stop?.();
});

/** Reads the database after the handler closed its connection (PGlite serves one at a time). */
async function inspect<T>(read: (sql: ReturnType<typeof createSql>) => Promise<T>): Promise<T> {
  const sql = createSql(url.toString(), 1);
  try {
    return await read(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

describe('the migration Lambda', () => {
  it('applies every migration to a fresh database, as the login role, with the secrets it is given', async () => {
    expect(await inspect(appliedSchemaVersion)).toBe(0);
    const output = vi.spyOn(console, 'log').mockImplementation(() => {});
    const result = await handler();
    expect(output.mock.calls.flat().join('\n')).toContain('database prepared');
    expect(output.mock.calls.flat().join('\n')).not.toContain(login.password);
    output.mockRestore();
    expect(result.applied).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
    expect(
      secrets
        .commandCalls(GetSecretValueCommand)
        .map((call) => call.args[0].input.SecretId)
        .sort(),
    ).toEqual([loginArn, masterArn].sort());
    expect(await inspect(appliedSchemaVersion)).toBe(expectedSchemaVersion);
    const owner = await inspect(
      (sql) => sql`SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = 'platform'`,
    );
    expect(owner).toEqual([{ owner: login.username }]);
  });

  it('applies nothing on the next deployment', async () => {
    vi.spyOn(console, 'log').mockImplementationOnce(() => {});
    expect(await handler()).toEqual({ applied: [] });
    expect(await inspect(appliedSchemaVersion)).toBe(expectedSchemaVersion);
  });

  it('fails the deployment when a secret holds no credentials', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: loginArn }).resolves({ SecretString: '{}' });
    await expect(handler()).rejects.toThrow(/holds no username and password/);
  });
});
