import { type Queryable, sqlState } from '../data/common/fragments';
import type { TableLayout } from '../data/common/model';
import { siteSchemaName } from '../data/schema/names';
import { ddl, ident, runDdl } from '../data/tables/ddl';
import type { Sql } from '../sql/client';

/** Whose tables to drop: the app's id and the identities the control plane stated when it was deleted. */
export interface DroppedApp {
  site: string;
  /** The site's `created_at`: tables of an earlier site with this slug are never touched. */
  siteIdentity: string;
  appId: number;
  /** The app's `created_at`: tables of an earlier app with this id (a restore) are never touched. */
  appIdentity: string;
}

/**
 * Drops up to `limit` data tables of a deleted app (each with its edge table, CASCADE removing foreign keys of the
 * app's other tables that point at it) and their catalog rows, in one transaction holding the site's registry
 * lock. Returns how many it dropped; 0 when none is left. Idempotent: a table already gone is skipped.
 */
export async function dropAppTables(sql: Sql, app: DroppedApp, limit: number): Promise<number> {
  try {
    return (await sql.begin(async (tx) => {
      const [registered] = await tx<{ site_identity: string | null }[]>`SELECT site_identity
        FROM platform.data_site_schemas WHERE site = ${app.site} FOR UPDATE`;
      if (!registered) return 0;
      if (registered.site_identity !== null && registered.site_identity !== app.siteIdentity) return 0;
      const schema = siteSchemaName(app.site);
      const rows = await tx<
        { id: string; physical_name: string; layout: TableLayout }[]
      >`SELECT id, physical_name,
        layout FROM ${tx(schema)}.catalog
        WHERE app_id = ${app.appId} AND (app_identity IS NULL OR app_identity = ${app.appIdentity})
        ORDER BY created_at, id LIMIT ${limit}`;
      for (const row of rows) await dropOne(tx, schema, row);
      return rows.length;
    })) as number;
  } catch (error) {
    // 42P01 undefined_table, 3F000 invalid_schema_name: the site never created a table.
    if (sqlState(error) === '42P01' || sqlState(error) === '3F000') return 0;
    throw error;
  }
}

async function dropOne(
  tx: Queryable,
  schema: string,
  row: { id: string; physical_name: string; layout: TableLayout },
): Promise<void> {
  if (row.layout.edges)
    await runDdl(tx, ddl`DROP TABLE IF EXISTS ${ident(schema)}.${ident(row.layout.edges)} CASCADE`);
  await runDdl(tx, ddl`DROP TABLE IF EXISTS ${ident(schema)}.${ident(row.physical_name)} CASCADE`);
  await tx`DELETE FROM ${tx(schema)}.catalog WHERE id = ${row.id}`;
}
