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
 * Prepared statements are planned as PostgreSQL chooses by default (`plan_cache_mode = auto`): five plans for the
 * actual values, then the generic plan if it is estimated no dearer. A read of one record by key then costs no
 * planning per request (planning was two thirds of PostgreSQL's CPU for a get by key). A statement whose best plan
 * depends on values a generic plan cannot know goes through `plannedPerExecution`.
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
 * Sends `query` as an unnamed statement, which PostgreSQL plans for its actual values every time it runs and never
 * keeps: for a grouped read, whose generic plan (not knowing the `LIMIT`) took an index-order aggregate twice as
 * slow as the hash aggregate the actual values get. It costs a round trip more (the driver asks for the parameter
 * types first), which only statements that cost milliseconds anyway should pay. Behind RDS Proxy every statement is
 * unnamed already. The driver reads `prepare` from a query's options when it runs it, as its own `simple()` sets it;
 * test/integration/data-statement-plans.test.ts proves the statement is not kept.
 */
export function plannedPerExecution<T extends postgres.PendingQuery<postgres.Row[]>>(query: T): T {
  (query as unknown as { options: { prepare?: boolean } }).options.prepare = false;
  return query;
}

/**
 * A database reached by host and credentials, the password read from a secret store; `refresh` forgets the
 * cached secret (after an authentication failure).
 */
export type SqlEndpoint = Omit<DatabaseEndpoint, 'secretArn'> & {
  password: () => Promise<string>;
  refresh?: () => Promise<void>;
};
