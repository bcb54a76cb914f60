import postgres from 'postgres';
import type { DatabaseEndpoint } from '../config';

export type Sql = postgres.Sql;

/**
 * Opens the data-plane client: one per container, a small pool that closes idle connections (Lambda freezes
 * containers). Named prepared statements (`prepare`) only on a direct connection to PostgreSQL: behind RDS Proxy
 * they pin every client session to one database connection, so the proxy endpoint (a `SqlEndpoint`) never uses
 * them.
 */
export function createSql(target: string | SqlEndpoint, poolSize: number, prepare = false): Sql {
  const options = {
    max: poolSize,
    idle_timeout: 20,
    max_lifetime: 60 * 10,
    connect_timeout: 10,
    prepare: typeof target === 'string' && prepare,
    onnotice: () => {},
    connection: { application_name: 'platform' },
  };
  if (typeof target === 'string') return postgres(target, options);
  return postgres({
    ...options,
    host: target.host,
    port: target.port,
    database: target.name,
    username: target.user,
    // Asked for on every new connection, so a rotated secret is picked up without a restart.
    password: target.password,
    ssl: target.ssl ? 'require' : false,
  });
}

/** A database reached by host and credentials, the password read from a secret store. */
export type SqlEndpoint = Omit<DatabaseEndpoint, 'secretArn'> & { password: () => Promise<string> };
