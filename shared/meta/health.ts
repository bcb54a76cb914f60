import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Sql } from '../sql/client';
import { assertSchemaCurrent, SchemaBehindError } from '../sql/schema-version';
import type { Store } from '../store/store';
import { platformVersion } from './version';

export type CheckStatus = 'ok' | 'error' | 'skipped';

export interface HealthReport {
  status: 'ok' | 'error';
  version: string;
  checks: Record<'dynamodb' | 'postgres', { status: CheckStatus; error?: string }>;
}

/** What the health check reaches: the stores, and the log for the reasons it does not send. */
export interface HealthDeps {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly sql: () => Sql;
}

/** A check that hangs is as bad as one that fails; a health probe must answer well within its caller's timeout. */
const checkTimeoutMs = 3000;

async function probe(deps: HealthDeps, name: string, check: () => Promise<unknown>) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${checkTimeoutMs} ms`)), checkTimeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return { status: 'ok' as const };
  } catch (error) {
    // The reason goes to the log only: driver messages can name hosts and users.
    deps.log.warn('health check failed', { check: name, error });
    const reason = error instanceof SchemaBehindError ? 'schema is behind the code' : 'is unreachable';
    return { status: 'error' as const, error: `${name} ${reason}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reaches each store with its cheapest request: DescribeTable on DynamoDB; on PostgreSQL the one SELECT of the
 * applied migration version, so a database the migration step has not prepared fails the check too.
 */
export async function checkHealth(deps: HealthDeps): Promise<HealthReport> {
  const sqlConfigured = Boolean(deps.config.databaseUrl || deps.config.databaseEndpoint);
  const [dynamodb, postgres] = await Promise.all([
    probe(deps, 'dynamodb', () =>
      deps.store.doc.send(new DescribeTableCommand({ TableName: deps.store.table })),
    ),
    sqlConfigured
      ? probe(deps, 'postgres', () => assertSchemaCurrent(deps.sql()))
      : Promise.resolve({ status: 'skipped' as const }),
  ]);
  const failed = dynamodb.status === 'error' || postgres.status === 'error';
  return { status: failed ? 'error' : 'ok', version: platformVersion, checks: { dynamodb, postgres } };
}
