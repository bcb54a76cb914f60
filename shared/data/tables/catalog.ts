import { type Queryable, sqlState } from '../common/fragments';
import type { CatalogEntry, TableLayout, TableSchema } from '../common/model';
import { siteSchemaName } from '../schema/names';
import { ddl, ident, runDdl } from './ddl';
import { isAnother, type Owner, storesDisagree } from './identity';

/**
 * The catalog: one `catalog` table in each site's schema, one row per data table (its schema JSON, its physical
 * layout, a version bumped by every change). Site schemas are registered in `platform.data_site_schemas`.
 */

/**
 * Bumped when the catalog's own layout changes; the registry remembers each site's. 2: the site and app identities
 * beside each table (shared/data/tables/identity.ts; migration 102 upgrades existing catalogs).
 */
export const catalogLayoutVersion = 2;

/**
 * Creates the site's schema and catalog when missing, and locks the site's registry row for the rest of the
 * transaction, so that schema changes of one site run one at a time. The registry row records the site's identity;
 * a row of an earlier site with this slug refuses (409, the stores disagree). Returns the schema name.
 */
export async function lockSiteSchema(tx: Queryable, owner: Owner): Promise<string> {
  const siteSlug = owner.siteSlug;
  const schema = siteSchemaName(siteSlug);
  await tx`INSERT INTO platform.data_site_schemas (site, schema_name, layout_version, site_identity)
    VALUES (${siteSlug}, ${schema}, ${catalogLayoutVersion}, ${owner.site}) ON CONFLICT (site) DO NOTHING`;
  const [registered] = await tx<{ site_identity: string | null }[]>`SELECT site_identity
    FROM platform.data_site_schemas WHERE site = ${siteSlug} FOR UPDATE`;
  if (registered?.site_identity === null) {
    // Registered before identities were recorded: the first schema change claims it.
    await tx`UPDATE platform.data_site_schemas SET site_identity = ${owner.site} WHERE site = ${siteSlug}`;
  } else if (registered && registered.site_identity !== owner.site) {
    throw storesDisagree(owner, 'site');
  }
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
      site_identity text,
      app_identity text,
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
 * The rows of the owner's app id, checked against the owner's identity: another identity refuses (409, logged);
 * rows written before identities were recorded are claimed by this first request (one UPDATE, once per app).
 */
async function owned(
  sql: Queryable,
  schema: string,
  owner: Owner,
  rows: readonly CatalogEntry[],
): Promise<CatalogEntry[]> {
  for (const row of rows) {
    const another = isAnother(row, owner);
    if (another) throw storesDisagree(owner, another);
  }
  if (rows.every((row) => row.app_identity !== null && row.site_identity !== null)) return [...rows];
  const claimed = await sql<(CatalogEntry & { id: string })[]>`UPDATE ${sql(schema)}.catalog SET
      app_identity = COALESCE(app_identity, ${owner.app}),
      site_identity = COALESCE(site_identity, ${owner.site})
    WHERE app_id = ${owner.appId} AND (app_identity IS NULL OR site_identity IS NULL)
    RETURNING id, app_identity, site_identity`;
  for (const row of claimed) {
    // Claimed by another identity meanwhile (only two apps of one id at once can race here): refused as well.
    const another = isAnother(row, owner);
    if (another) throw storesDisagree(owner, another);
  }
  return rows.map((row) => ({ ...row, app_identity: owner.app, site_identity: owner.site }));
}

/**
 * One table of an app. `lock`: `share` keeps the schema from changing under a write transaction; `update` is
 * taken by schema changes. A row of another app or site identity than the owner's is refused (409).
 */
export async function findTable(
  sql: Queryable,
  schema: string,
  owner: Owner,
  name: string,
  lock?: 'share' | 'update',
): Promise<CatalogEntry | undefined> {
  // No table can be named with U+0000 (PostgreSQL text cannot hold it): not found, rather than a driver error.
  if (name.includes('\u0000')) return undefined;
  const suffix = lock === 'share' ? sql`FOR SHARE` : lock === 'update' ? sql`FOR UPDATE` : sql``;
  const rows = await orEmpty(
    () =>
      sql<CatalogEntry[]>`SELECT * FROM ${sql(schema)}.catalog
        WHERE app_id = ${owner.appId} AND name = ${name} ${suffix}`,
    [] as CatalogEntry[],
  );
  return (await owned(sql, schema, owner, rows))[0];
}

/** Every table of an app, by name; refused (409) when any row is of another app or site identity. */
export async function listTables(sql: Queryable, schema: string, owner: Owner): Promise<CatalogEntry[]> {
  const rows = await orEmpty(
    async () => [
      ...(await sql<CatalogEntry[]>`SELECT * FROM ${sql(schema)}.catalog
        WHERE app_id = ${owner.appId} ORDER BY name`),
    ],
    [],
  );
  return owned(sql, schema, owner, rows);
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
    owner: Owner;
    name: string;
    physicalName: string;
    description: string;
    definition: TableSchema;
    layout: TableLayout;
  },
): Promise<CatalogEntry> {
  const [row] = await tx<CatalogEntry[]>`INSERT INTO ${tx(schema)}.catalog
    (app_id, name, physical_name, description, definition, layout, site_identity, app_identity)
    VALUES (${entry.owner.appId}, ${entry.name}, ${entry.physicalName}, ${entry.description},
      ${tx.json(entry.definition as never)}, ${tx.json(entry.layout as never)}, ${entry.owner.site},
      ${entry.owner.app})
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
