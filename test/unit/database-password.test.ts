import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SecretsManagerPassword } from '../../shared/adapters/aws/database-password';
import { sqlTarget } from '../../shared/compose/sql-plane';
import { loadConfig } from '../../shared/config';
import { isAuthenticationFailure, retryAuthentication } from '../../shared/sql/auth-retry';
import type { Sql } from '../../shared/sql/client';

const secrets = mockClient(SecretsManagerClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => secrets.restore());
const arn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:db-abc';

afterEach(() => {
  secrets.reset();
});

describe('SecretsManagerPassword', () => {
  it('reads the password of the RDS secret and caches it for its maximum age', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ username: 'u', password: 'p1' }) });
    let now = 0;
    const password = new SecretsManagerPassword(
      new SecretsManagerClient({ region: 'eu-west-1' }),
      arn,
      1000,
      () => now,
    );
    expect(await password.get()).toBe('p1');
    now = 999;
    expect(await password.get()).toBe('p1');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(secrets.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toEqual({ SecretId: arn });
    secrets
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ username: 'u', password: 'p2' }) });
    now = 1000;
    expect(await password.get()).toBe('p2');
  });

  it('asks again after a failure instead of caching it', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({ SecretString: JSON.stringify({ password: 'p' }) });
    const password = new SecretsManagerPassword(new SecretsManagerClient({ region: 'eu-west-1' }), arn);
    await expect(password.get()).rejects.toThrow('throttled');
    await expect(password.get()).resolves.toBe('p');
  });

  it('refuses a secret without a password', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '{"username": "u"}' });
    const password = new SecretsManagerPassword(new SecretsManagerClient({ region: 'eu-west-1' }), arn);
    await expect(password.get()).rejects.toThrow('no password');
  });
});

describe('the data plane of a cloud function', () => {
  it('reads the password from the database secret when the first connection asks for it', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ password: 'from-secret' }) });
    const target = sqlTarget(
      loadConfig({
        PLATFORM_RUNTIME: 'aws',
        TABLE_NAME: 't',
        JWT_SIGNING_KEY_ID: 'k',
        DATABASE_HOST: 'proxy.example',
        DATABASE_SECRET_ARN: arn,
      }),
    );
    if (typeof target === 'string') throw new Error('expected an endpoint');
    expect(target.host).toBe('proxy.example');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(0);
    expect(await target.password()).toBe('from-secret');
    expect(await target.password()).toBe('from-secret');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });
});

const cloudConfig = (user = 'platform_app') =>
  loadConfig({
    PLATFORM_RUNTIME: 'aws',
    TABLE_NAME: 't',
    JWT_SIGNING_KEY_ID: 'k',
    DATABASE_HOST: 'proxy.example',
    DATABASE_USER: user,
    DATABASE_SECRET_ARN: arn,
  });

describe('the database login after a rotation', () => {
  it('reads the secret again on refresh, before its maximum age, and picks up the rotated password', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: JSON.stringify({ username: 'platform_app', password: 'before' }) })
      .resolves({ SecretString: JSON.stringify({ username: 'platform_app', password: 'after' }) });
    const target = sqlTarget(cloudConfig());
    if (typeof target === 'string' || !target.refresh) throw new Error('expected an endpoint with refresh');
    expect(await target.password()).toBe('before');
    expect(await target.password()).toBe('before');
    await target.refresh();
    expect(await target.password()).toBe('after');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('refuses a secret naming another user than DATABASE_USER (an alternating-users clone), naming both', async () => {
    secrets
      .on(GetSecretValueCommand)
      .resolves({ SecretString: JSON.stringify({ username: 'platform_app_clone', password: 'p' }) });
    const target = sqlTarget(cloudConfig());
    if (typeof target === 'string') throw new Error('expected an endpoint');
    await expect(target.password()).rejects.toThrow(/platform_app_clone.*platform_app.*single-user/);
  });

  const refused = Object.assign(new Error('password authentication failed'), { code: '28P01' });

  /** Like the driver's queries: a Promise subclass, so that `await` goes through its `then`. */
  class FakeQuery extends Promise<unknown> {}

  /** A stand-in for the driver: each tagged query is a promise; the first `failures` of them are refused. */
  function fakeSql(failures: number, error: Error = refused) {
    let sent = 0;
    const sql = ((strings: TemplateStringsArray) => {
      sent += 1;
      const result =
        sent <= failures ? FakeQuery.reject(error) : FakeQuery.resolve([{ text: strings.join('?') }]);
      result.catch(() => {});
      return result;
    }) as unknown as Sql;
    return { sql, sent: () => sent };
  }

  it('refreshes the secret and sends a refused query once more', async () => {
    const fake = fakeSql(1);
    let refreshed = 0;
    const sql = retryAuthentication(fake.sql, async () => {
      refreshed += 1;
    });
    expect(await sql`SELECT 1`).toEqual([{ text: 'SELECT 1' }]);
    expect({ refreshed, sent: fake.sent() }).toEqual({ refreshed: 1, sent: 2 });
  });

  it('lets a second refusal and any other error through without more attempts', async () => {
    const twice = fakeSql(2);
    let refreshed = 0;
    const sql = retryAuthentication(twice.sql, async () => {
      refreshed += 1;
    });
    await expect(sql`SELECT 1`).rejects.toThrow('password authentication failed');
    expect({ refreshed, sent: twice.sent() }).toEqual({ refreshed: 1, sent: 2 });
    const other = fakeSql(1, Object.assign(new Error('syntax'), { code: '42601' }));
    const plain = retryAuthentication(other.sql, async () => {
      refreshed += 1;
    });
    await expect(plain`SELEC 1`).rejects.toThrow('syntax');
    expect({ refreshed, sent: other.sent() }).toEqual({ refreshed: 1, sent: 1 });
  });

  it('knows PostgreSQL authentication failures by their SQLSTATE', () => {
    expect(isAuthenticationFailure({ code: '28P01' })).toBe(true);
    expect(isAuthenticationFailure({ code: '28000' })).toBe(true);
    expect(isAuthenticationFailure({ code: '57P01' })).toBe(false);
    expect(isAuthenticationFailure(new Error('x'))).toBe(false);
  });
});
