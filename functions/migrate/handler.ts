import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createSql } from '../../shared/sql/client';
import { prepareDatabase } from '../../shared/sql/login-role';

/**
 * The deploy-time database step (a CDK Trigger runs it on every deployment whose code changed; not an HTTP
 * group): as the master user, through RDS Proxy, it creates the functions' login role and applies the migrations.
 */

interface Credentials {
  username: string;
  password: string;
}

const secrets = new SecretsManagerClient({});

async function credentials(secretArn: string): Promise<Credentials> {
  const result = await secrets.send(new GetSecretValueCommand({ SecretId: secretArn }));
  const parsed = JSON.parse(result.SecretString ?? '{}') as Partial<Credentials>;
  if (typeof parsed.username !== 'string' || typeof parsed.password !== 'string') {
    throw new Error(`Secret ${secretArn} holds no username and password`);
  }
  return { username: parsed.username, password: parsed.password };
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** Prepares the database; fails the deployment when it cannot. */
export async function handler(): Promise<{ applied: number[] }> {
  const [master, login] = await Promise.all([
    credentials(required('MASTER_SECRET_ARN')),
    credentials(required('LOGIN_SECRET_ARN')),
  ]);
  const sql = createSql(
    {
      host: required('DATABASE_HOST'),
      port: Number(required('DATABASE_PORT')),
      name: required('DATABASE_NAME'),
      user: master.username,
      ssl: process.env.DATABASE_SSL !== 'disable',
      password: async () => master.password,
    },
    // One connection: SET ROLE in prepareDatabase must hold for the migrations that follow.
    1,
    { statementTimeoutMs: 5 * 60 * 1000 },
  );
  try {
    const applied = await prepareDatabase(sql, { user: login.username, password: login.password });
    console.log(JSON.stringify({ message: 'database prepared', login: login.username, applied }));
    return { applied };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
