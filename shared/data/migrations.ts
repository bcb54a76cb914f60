import type { Migration } from '../sql/migrations';
import { ddl, ident, runDdl } from './ddl';

/** The data plane's own SQL objects (catalog and friends), versioned after the platform's first migration. */
export const dataMigrations: Migration[] = [
  {
    version: 100,
    name: 'data: site schema registry',
    // One row per site that has data tables: its schema (names.ts) and the layout version of its catalog, so that
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
    // DDL takes no bind parameters: data/ddl.ts sends constant templates with %I/%L placeholders and the names
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
    // different moments is refused instead of served the old rows (data/identity.ts). Existing rows stay null and
    // are claimed by their first request.
    up: async (sql) => {
      await sql`ALTER TABLE platform.data_site_schemas ADD COLUMN IF NOT EXISTS site_identity text`;
      const sites = await sql<{ schema_name: string }[]>`SELECT schema_name FROM platform.data_site_schemas
        WHERE layout_version < 2 ORDER BY schema_name`;
      for (const { schema_name } of sites) {
        await runDdl(
          sql,
          ddl`ALTER TABLE ${ident(schema_name)}.catalog
            ADD COLUMN IF NOT EXISTS site_identity text, ADD COLUMN IF NOT EXISTS app_identity text`,
        );
      }
      await sql`UPDATE platform.data_site_schemas SET layout_version = 2 WHERE layout_version < 2`;
    },
  },
];
