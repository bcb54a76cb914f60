import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createSql } from '../../shared/sql/client';
import { prepareDatabase } from '../../shared/sql/login-role';
import { defaultStatementTimeoutMs } from '../../shared/sql/session-defaults';

/**
 * The deploy-time database step (a CDK Trigger runs it on every deployment whose code changed; not an HTTP
 * group): as the master user, through RDS Proxy, it creates the functions' login role, gives the roles their session
 * defaults (statement timeout, UTC, ISO dates) and applies the migrations.
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

/** Connection attempts before the step gives up (a cluster resuming from zero capacity refuses for a while). */
const connectAttempts = 4;

/** Runs `step`, trying again after a connection failure (not after a failed migration) with a growing pause. */
async function withConnectionRetry<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const connection =
        typeof code === 'string' &&
        (code.startsWith('CONNECT') ||
          code === 'ECONNREFUSED' ||
          code === 'ECONNRESET' ||
          code === 'ETIMEDOUT' ||
          code === '57P03');
      if (!connection || attempt >= connectAttempts) throw error;
      console.log(JSON.stringify({ message: 'database not reachable yet, retrying', attempt, code }));
      await new Promise((resolve) => setTimeout(resolve, 2000 * 2 ** (attempt - 1)));
    }
  }
}

/** Prepares the database; fails the deployment when it cannot. */
export async function handler(): Promise<{ applied: number[] }> {
  const [master, login, health] = await Promise.all([
    credentials(required('MASTER_SECRET_ARN')),
    credentials(required('LOGIN_SECRET_ARN')),
    process.env.HEALTH_SECRET_ARN ? credentials(process.env.HEALTH_SECRET_ARN) : undefined,
  ]);
  const lockTimeoutMs = Number(process.env.MIGRATION_LOCK_TIMEOUT_MS ?? 5000);
  // The request sessions' statement timeout, made the roles' default (the functions' DATABASE_STATEMENT_TIMEOUT_MS).
  const statementTimeoutMs = Number(process.env.DATABASE_STATEMENT_TIMEOUT_MS ?? defaultStatementTimeoutMs);
  return withConnectionRetry(() => prepare(master, login, health, { lockTimeoutMs, statementTimeoutMs }));
}

async function prepare(
  master: Credentials,
  login: Credentials,
  health: Credentials | undefined,
  limits: { lockTimeoutMs: number; statementTimeoutMs: number },
): Promise<{ applied: number[] }> {
  const sql = createSql(
    {
      host: required('DATABASE_HOST'),
      port: Number(required('DATABASE_PORT')),
      name: required('DATABASE_NAME'),
      user: master.username,
      ssl: process.env.DATABASE_SSL !== 'disable',
      password: async () => master.password,
    },
    // One connection, one transaction at a time; each sets its role and limits with SET LOCAL (login-role.ts).
    1,
  );
  try {
    const applied = await prepareDatabase(
      sql,
      { user: login.username, password: login.password },
      { health: health && { user: health.username, password: health.password }, ...limits },
    );
    console.log(JSON.stringify({ message: 'database prepared', login: login.username, applied }));
    return { applied };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
