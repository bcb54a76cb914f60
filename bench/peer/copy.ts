import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';

/**
 * Copies the project's physical `items` table into `public.items` of a second database of the same cluster, for
 * Directus to read: PostgreSQL has no cross-database INSERT … SELECT, so the rows go through psql `\copy` to a file
 * and back. The copy has the floor's columns (not the search vector, which Directus has no type for) with their
 * defaults, the same primary key and the same plain-column indexes; both tables are VACUUM ANALYZEd so the planner
 * sees the same.
 */

const psqlBinary = '/usr/lib/postgresql/15/bin/psql';
/** The columns the floor and the project return for a record, the generated key first. */
const copiedColumns = ['id', 'title', 'category', 'price', 'description', 'maker_id', 'created_at'];

/** The URL of another database of the same cluster. */
export function databaseUrlOf(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function psql(url: string, command: string): void {
  execFileSync(psqlBinary, [url, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', command], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A column of the copy as the source has it: type, NOT NULL and default, so that a create on the copy (C1 through
 * Directus) gets its key and `created_at` from the database as the project's table does.
 */
export function columnDefinition(column: {
  name: string;
  type: string;
  default: string | null;
  notNull: boolean;
}) {
  const notNull = column.notNull ? ' NOT NULL' : '';
  const fallback = column.default === null ? '' : ` DEFAULT ${column.default}`;
  return `${quoted(column.name)} ${column.type}${notNull}${fallback}`;
}

interface SourceIndex {
  definition: string;
  columns: string[];
  primary: boolean;
}

/** The source table's column types and its plain-column indexes (expression indexes have no columns to copy). */
async function describeSource(sql: postgres.Sql, relation: string) {
  const columns = await sql<{ name: string; type: string; default: string | null; notNull: boolean }[]>`
    SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS "notNull",
      pg_get_expr(d.adbin, d.adrelid) AS default
    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = ${relation}::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`;
  const indexes = await sql<SourceIndex[]>`
    SELECT pg_get_indexdef(i.indexrelid) AS definition, i.indisprimary AS primary,
      array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns
    FROM pg_index i WHERE i.indrelid = ${relation}::regclass AND i.indexprs IS NULL AND i.indpred IS NULL`;
  return { columns, indexes };
}

/**
 * Creates database `target` (it must not exist), copies the table into its `public.items` and returns the index
 * definitions the copy has, as `USING btree (category)`.
 */
export async function copyToPeerDatabase(
  url: string,
  source: { schema: string; table: string },
  target: string,
): Promise<string[]> {
  const relation = `${quoted(source.schema)}.${quoted(source.table)}`;
  const targetUrl = databaseUrlOf(url, target);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'platform-peer-copy-'));
  try {
    const { columns, indexes } = await describeSource(sql, relation);
    const kept = columns.filter((column) => copiedColumns.includes(column.name));
    if (kept.length !== copiedColumns.length)
      throw new Error(`${relation} lacks some of ${copiedColumns.join(', ')}`);
    await sql.unsafe(`CREATE DATABASE ${quoted(target)}`);
    const list = kept.map((column) => quoted(column.name)).join(', ');
    const definitions = kept.map(columnDefinition).join(', ');
    psql(targetUrl, `CREATE TABLE public.items (${definitions}, PRIMARY KEY ("id"))`);
    const file = join(dir, 'items.copy');
    psql(url, `\\copy (SELECT ${list} FROM ${relation}) TO '${file}' WITH (FORMAT binary)`);
    psql(targetUrl, `\\copy public.items (${list}) FROM '${file}' WITH (FORMAT binary)`);
    const shown = ['PRIMARY KEY (id)'];
    for (const index of indexes) {
      if (index.primary || !index.columns.every((name) => copiedColumns.includes(name))) continue;
      const using = index.definition.slice(index.definition.indexOf(' USING '));
      const unique = index.definition.startsWith('CREATE UNIQUE') ? 'UNIQUE ' : '';
      psql(targetUrl, `CREATE ${unique}INDEX ON public.items${using}`);
      shown.push(`${unique}${using.trim()}`);
    }
    await sql.unsafe(`VACUUM ANALYZE ${relation}`);
    psql(targetUrl, 'VACUUM ANALYZE public.items');
    return shown;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sql.end();
  }
}
