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

/**
 * Applies the migrations that have not run yet; safe to run concurrently. Called by the deploy-time step
 * (functions/migrate) and the local runtime's start, never by a request handler (shared/sql/schema-version.ts).
 * Returns the versions applied.
 */
export async function migrate(sql: Sql, list: readonly Migration[] = migrations): Promise<number[]> {
  await sql`CREATE SCHEMA IF NOT EXISTS platform`;
  await sql`CREATE TABLE IF NOT EXISTS platform.schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;
  const applied: number[] = [];
  for (const migration of [...list].sort((a, b) => a.version - b.version)) {
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${lockKey})`;
      const [done] = await tx`SELECT 1 FROM platform.schema_migrations WHERE version = ${migration.version}`;
      if (done) return;
      await migration.up(tx as unknown as Sql);
      await tx`INSERT INTO platform.schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    });
  }
  return applied;
}
