import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretsManagerPassword } from '../../shared/adapters/aws/database-password';
import { loadConfig } from '../../shared/config';
import { sqlTarget } from '../../shared/sql/plane';

const secrets = mockClient(SecretsManagerClient);
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
