import postgres from 'postgres';

export type Sql = postgres.Sql;

/**
 * Opens the data-plane client: one per container, a small pool that closes idle connections (Lambda freezes
 * containers), and no named prepared statements so that RDS Proxy does not pin connections.
 */
export function createSql(url: string, poolSize: number): Sql {
  return postgres(url, {
    max: poolSize,
    idle_timeout: 20,
    max_lifetime: 60 * 10,
    connect_timeout: 10,
    prepare: false,
    onnotice: () => {},
    connection: { application_name: 'platform' },
  });
}
