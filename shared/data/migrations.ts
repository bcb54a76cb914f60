import type { Migration } from '../sql/migrations';

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
];
