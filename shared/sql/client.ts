import postgres from 'postgres';
import { dateTypes } from '../api/datetimes';
import type { DatabaseEndpoint } from '../config';
import { retryAuthentication } from './auth-retry';

export type Sql = postgres.Sql;

/** Statements PostgreSQL cancels after this long (ms) unless configured otherwise: within API Gateway's 30 s. */
export const defaultStatementTimeoutMs = 10_000;

/**
 * Opens the data-plane client: one per container, a small pool that closes idle connections (Lambda freezes
 * containers). Named prepared statements (`prepare`) only on a direct connection to PostgreSQL: behind RDS Proxy
 * they pin every client session to one database connection, so the proxy endpoint (a `SqlEndpoint`) never uses
 * them. Every session runs in UTC with ISO dates (the text that shared/api/datetimes.ts reads) and with a
 * statement timeout, so that no statement (a costly regular expression in a CHECK, say) holds a connection for long.
 * Prepared statements are planned for each execution's values (`plan_cache_mode`): a generic plan does not know a
 * `LIMIT` parameter and, for a grouped read, chose an index-order aggregate twice as slow as the hash aggregate the
 * actual values get. Unnamed statements behind RDS Proxy are planned that way anyway.
 */
export function createSql(
  target: string | SqlEndpoint,
  poolSize: number,
  { prepare = false, statementTimeoutMs = defaultStatementTimeoutMs } = {},
): Sql {
  const options = {
    max: poolSize,
    idle_timeout: 20,
    max_lifetime: 60 * 10,
    connect_timeout: 10,
    prepare: typeof target === 'string' && prepare,
    onnotice: () => {},
    types: dateTypes,
    connection: {
      application_name: 'platform',
      TimeZone: 'UTC',
      DateStyle: 'ISO, MDY',
      statement_timeout: statementTimeoutMs,
      plan_cache_mode: 'force_custom_plan',
    },
  };
  if (typeof target === 'string') return postgres(target, options);
  const sql = postgres({
    ...options,
    host: target.host,
    port: target.port,
    database: target.name,
    username: target.user,
    // Asked for on every new connection, so a rotated secret is picked up without a restart.
    password: target.password,
    // Verify the server (RDS Proxy presents an ACM certificate chained to Amazon's roots, which Node's own CA
    // store holds) and its host name: `require` would encrypt to whoever answers.
    ssl: target.ssl ? { rejectUnauthorized: true } : false,
  });
  // After a rotation, a refused connection reads the secret again and the query is sent once more.
  return target.refresh ? retryAuthentication(sql, target.refresh) : sql;
}

/**
 * A database reached by host and credentials, the password read from a secret store; `refresh` forgets the
 * cached secret (after an authentication failure).
 */
export type SqlEndpoint = Omit<DatabaseEndpoint, 'secretArn'> & {
  password: () => Promise<string>;
  refresh?: () => Promise<void>;
};
