import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import type { Deps } from '../deps';
import { platformVersion } from './version';

export type CheckStatus = 'ok' | 'error' | 'skipped';

export interface HealthReport {
  status: 'ok' | 'error';
  version: string;
  checks: Record<'dynamodb' | 'postgres', { status: CheckStatus; error?: string }>;
}

/** A check that hangs is as bad as one that fails; a health probe must answer well within its caller's timeout. */
const checkTimeoutMs = 3000;

async function probe(deps: Deps, name: string, check: () => Promise<unknown>) {
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
    return { status: 'error' as const, error: `${name} is unreachable` };
  } finally {
    clearTimeout(timer);
  }
}

/** Reaches each store with its cheapest request: DescribeTable on DynamoDB, `select 1` on PostgreSQL. */
export async function checkHealth(deps: Deps): Promise<HealthReport> {
  const sqlConfigured = Boolean(deps.config.databaseUrl || deps.config.databaseEndpoint);
  const [dynamodb, postgres] = await Promise.all([
    probe(deps, 'dynamodb', () =>
      deps.store.doc.send(new DescribeTableCommand({ TableName: deps.store.table })),
    ),
    sqlConfigured
      ? probe(deps, 'postgres', () => deps.sql()`select 1`)
      : Promise.resolve({ status: 'skipped' as const }),
  ]);
  const failed = dynamodb.status === 'error' || postgres.status === 'error';
  return { status: failed ? 'error' : 'ok', version: platformVersion, checks: { dynamodb, postgres } };
}
