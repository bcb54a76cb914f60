import { ddl, ident, runDdl } from './ddl';
import type { CatalogEntry, TableLayout, TableSchema } from './model';
import { siteSchemaName } from './names';
import { type Queryable, sqlState } from './sql';

/**
 * The catalog: one `catalog` table in each site's schema, one row per data table (its schema JSON, its physical
 * layout, a version bumped by every change). Site schemas are registered in `platform.data_site_schemas`.
 */

/** Bumped when the catalog's own layout changes; the registry remembers each site's. */
export const catalogLayoutVersion = 1;

/**
 * Creates the site's schema and catalog when missing, and locks the site's registry row for the rest of the
 * transaction, so that schema changes of one site run one at a time. Returns the schema name.
 */
export async function lockSiteSchema(tx: Queryable, siteSlug: string): Promise<string> {
  const schema = siteSchemaName(siteSlug);
  await tx`INSERT INTO platform.data_site_schemas (site, schema_name, layout_version)
    VALUES (${siteSlug}, ${schema}, ${catalogLayoutVersion}) ON CONFLICT (site) DO NOTHING`;
  await tx`SELECT 1 FROM platform.data_site_schemas WHERE site = ${siteSlug} FOR UPDATE`;
  await runDdl(tx, ddl`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
  await runDdl(
    tx,
    ddl`CREATE TABLE IF NOT EXISTS ${ident(schema)}.catalog (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      app_id integer NOT NULL,
      name text NOT NULL,
      physical_name text NOT NULL UNIQUE,
      description text NOT NULL DEFAULT '',
      definition jsonb NOT NULL,
      layout jsonb NOT NULL,
      version integer NOT NULL DEFAULT 1,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (app_id, name)
    )`,
  );
  return schema;
}

/** Runs a catalog read; a site that never created a table has no catalog yet, which reads as empty. */
async function orEmpty<T>(read: () => Promise<T>, empty: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name
    if (sqlState(error) === '42P01' || sqlState(error) === '3F000') return empty;
    throw error;
  }
}

/**
 * One table of an app. `lock`: `share` keeps the schema from changing under a write transaction; `update` is
 * taken by schema changes.
 */
export async function findTable(
  sql: Queryable,
  schema: string,
  appId: number,
  name: string,
  lock?: 'share' | 'update',
): Promise<CatalogEntry | undefined> {
  // No table can be named with U+0000 (PostgreSQL text cannot hold it): not found, rather than a driver error.
  if (name.includes('\u0000')) return undefined;
  const suffix = lock === 'share' ? sql`FOR SHARE` : lock === 'update' ? sql`FOR UPDATE` : sql``;
  const rows = await orEmpty(
    () =>
      sql<CatalogEntry[]>`SELECT * FROM ${sql(schema)}.catalog
        WHERE app_id = ${appId} AND name = ${name} ${suffix}`,
    [] as CatalogEntry[],
  );
  return rows[0];
}

export async function listTables(sql: Queryable, schema: string, appId: number): Promise<CatalogEntry[]> {
  return orEmpty(
    async () => [
      ...(await sql<CatalogEntry[]>`SELECT * FROM ${sql(schema)}.catalog
        WHERE app_id = ${appId} ORDER BY name`),
    ],
    [],
  );
}

/** The table whose physical name this is (database errors name physical tables). */
export async function findByPhysicalName(
  sql: Queryable,
  schema: string,
  physical: string,
): Promise<CatalogEntry | undefined> {
  const rows = await orEmpty(
    () => sql<CatalogEntry[]>`SELECT * FROM ${sql(schema)}.catalog WHERE physical_name = ${physical}`,
    [] as CatalogEntry[],
  );
  return rows[0];
}

export async function insertTable(
  tx: Queryable,
  schema: string,
  entry: {
    appId: number;
    name: string;
    physicalName: string;
    description: string;
    definition: TableSchema;
    layout: TableLayout;
  },
): Promise<CatalogEntry> {
  const [row] = await tx<CatalogEntry[]>`INSERT INTO ${tx(schema)}.catalog
    (app_id, name, physical_name, description, definition, layout)
    VALUES (${entry.appId}, ${entry.name}, ${entry.physicalName}, ${entry.description},
      ${tx.json(entry.definition as never)}, ${tx.json(entry.layout as never)})
    RETURNING *`;
  return row as CatalogEntry;
}

/** Records a change of a table: new definition or description, version bumped. */
export async function updateTable(
  tx: Queryable,
  schema: string,
  id: string,
  changes: { definition?: TableSchema; layout?: TableLayout; description?: string },
): Promise<CatalogEntry> {
  const [row] = await tx<CatalogEntry[]>`UPDATE ${tx(schema)}.catalog SET
    definition = COALESCE(${changes.definition ? tx.json(changes.definition as never) : null}::jsonb, definition),
    layout = COALESCE(${changes.layout ? tx.json(changes.layout as never) : null}::jsonb, layout),
    description = COALESCE(${changes.description ?? null}::text, description),
    version = version + 1,
    updated_at = now()
    WHERE id = ${id}
    RETURNING *`;
  return row as CatalogEntry;
}

export async function deleteTable(tx: Queryable, schema: string, id: string): Promise<void> {
  await tx`DELETE FROM ${tx(schema)}.catalog WHERE id = ${id}`;
}
