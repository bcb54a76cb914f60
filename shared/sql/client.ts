import postgres from 'postgres';
import { dateTypes } from '../api/datetimes';
import type { DatabaseEndpoint } from '../config';
import { retryAuthentication } from './auth-retry';

export type Sql = postgres.Sql;

/**
 * Opens the data-plane client: one per container, a small pool that closes idle connections (Lambda freezes
 * containers). Named prepared statements (`prepare`) only on a direct connection to PostgreSQL: behind RDS Proxy
 * they pin every client session to one database connection, so the proxy endpoint (a `SqlEndpoint`) never uses
 * them, nor a DATABASE_URL client with DATABASE_PROXY=true (shared/compose/sql-plane.ts). The startup message holds
 * the user, the database and the encoding, nothing else, on every client (test/unit/sql-startup.test.ts): the
 * session settings (UTC, ISO dates, the statement timeout, the application's name) are the connecting role's
 * defaults in the database (shared/sql/session-defaults.ts), set by the deploy-time step and the local start.
 * Prepared statements are planned as PostgreSQL chooses by default (`plan_cache_mode = auto`): five plans for the
 * actual values, then the generic plan if it is estimated no dearer. A read of one record by key then costs no
 * planning per request (planning was two thirds of PostgreSQL's CPU for a get by key). A statement whose best plan
 * depends on values a generic plan cannot know goes through `plannedPerExecution`.
 */
export function createSql(target: string | SqlEndpoint, poolSize: number, { prepare = false } = {}): Sql {
  const options = {
    max: poolSize,
    idle_timeout: 20,
    max_lifetime: 60 * 10,
    connect_timeout: 10,
    prepare: typeof target === 'string' && prepare,
    onnotice: () => {},
    types: dateTypes,
    // The driver would send `application_name: 'postgres.js'` (or PGAPPNAME); an empty value is left out.
    connection: { application_name: '' },
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
