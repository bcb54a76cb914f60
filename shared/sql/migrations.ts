import type { Sql } from './client';

/** A versioned change of the platform's own SQL objects; applied once, in order, each in one transaction. */
export interface Migration {
  version: number;
  name: string;
  up: (sql: Sql) => Promise<unknown>;
}

/**
 * The platform's migrations: its own schema, then the data plane's own SQL objects (catalog and friends), versioned
 * from 100.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'platform schema',
    up: (sql) => sql`CREATE SCHEMA IF NOT EXISTS platform`,
  },
  {
    version: 100,
    name: 'data: site schema registry',
    // One row per site that has data tables: its schema (shared/data/schema/names.ts) and the layout version of its catalog, so that
    // a later change of the catalog's own shape can find and upgrade every site.
    up: (sql) => sql`CREATE TABLE IF NOT EXISTS platform.data_site_schemas (
      site text PRIMARY KEY,
      schema_name text NOT NULL UNIQUE,
      layout_version integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
  },
  {
    version: 101,
    name: 'data: DDL runner',
    // DDL takes no bind parameters: shared/data/tables/ddl.ts sends constant templates with %I/%L placeholders and the names
    // and values as parameters; format() quotes them on the server.
    up: (sql) => sql`CREATE OR REPLACE FUNCTION platform.execute_ddl(template text, args text[])
      RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format(template, VARIADIC args);
      END
      $$`,
  },
  {
    version: 102,
    name: 'data: site and app identities beside each table',
    // The registry and every catalog record whose site and app (by their creation time in the control plane) the
    // rows belong to, so that a site or app that got an old slug or id again after the stores were restored to
    // different moments is refused instead of served the old rows (data/tables/identity.ts). Existing rows stay null and
    // are claimed by their first request. The catalogs' schema names are quoted by the DDL runner of 101 (%I).
    up: async (sql) => {
      await sql`ALTER TABLE platform.data_site_schemas ADD COLUMN IF NOT EXISTS site_identity text`;
      const sites = await sql<{ schema_name: string }[]>`SELECT schema_name FROM platform.data_site_schemas
        WHERE layout_version < 2 ORDER BY schema_name`;
      const addColumns =
        'ALTER TABLE %I.catalog ADD COLUMN IF NOT EXISTS site_identity text, ADD COLUMN IF NOT EXISTS app_identity text';
      for (const { schema_name } of sites)
        await sql`SELECT platform.execute_ddl(${addColumns}, ${[schema_name]})`;
      await sql`UPDATE platform.data_site_schemas SET layout_version = 2 WHERE layout_version < 2`;
    },
  },
];

// Any constant shared by every process that migrates: serialises concurrent runs (two deployments, two local starts).
const lockKey = 7_352_114;

/** A migration's own statement timeout, longer than a request's (a migration may rewrite every site's catalog). */
export const migrationStatementTimeoutMs = 5 * 60 * 1000;

export interface MigrateOptions {
  /** The role the migrations run as (`SET LOCAL ROLE`), so that what they create belongs to it. */
  readonly role?: string;
  /**
   * A migration that waits for a lock held by live requests fails after this long (the deployment rolls back)
   * instead of queueing every later request behind its own lock request.
   */
  readonly lockTimeoutMs?: number;
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Runs `work` in a transaction with the migration's role and limits, each `SET LOCAL`: they end with the
 * transaction, so a pooled connection (RDS Proxy, PgBouncer) is handed on as it was, and nothing pins it. The
 * transaction-level advisory lock (`pg_advisory_xact_lock`) does not pin RDS Proxy either.
 */
export async function inMigrationTransaction<T>(
  sql: Sql,
  options: MigrateOptions,
  work: (tx: Sql) => Promise<T>,
): Promise<T> {
  return (await sql.begin(async (tx) => {
    await tx.unsafe(`SET LOCAL statement_timeout = ${migrationStatementTimeoutMs}`);
    if (options.lockTimeoutMs !== undefined)
      await tx.unsafe(`SET LOCAL lock_timeout = ${Math.max(1, Math.trunc(options.lockTimeoutMs))}`);
    if (options.role !== undefined) await tx.unsafe(`SET LOCAL ROLE ${identifier(options.role)}`);
    return work(tx as unknown as Sql);
  })) as T;
}

/**
 * Applies the migrations that have not run yet; safe to run concurrently. Called by the deploy-time step
 * (functions/migrate, through shared/sql/login-role.ts) and the local runtime's start, never by a request handler
 * (shared/sql/schema-version.ts). Each migration is one transaction with its limits as `SET LOCAL`
 * (`inMigrationTransaction`). Returns the versions applied.
 */
export async function migrate(
  sql: Sql,
  list: readonly Migration[] = migrations,
  options: MigrateOptions = {},
): Promise<number[]> {
  await inMigrationTransaction(sql, options, async (tx) => {
    await tx`CREATE SCHEMA IF NOT EXISTS platform`;
    await tx`CREATE TABLE IF NOT EXISTS platform.schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`;
  });
  const applied: number[] = [];
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    await inMigrationTransaction(sql, options, async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${lockKey})`;
      const [done] = await tx`SELECT 1 FROM platform.schema_migrations WHERE version = ${migration.version}`;
      if (done) return;
      await migration.up(tx);
      await tx`INSERT INTO platform.schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    });
  }
  return applied;
}
