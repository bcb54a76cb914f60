import type { Sql } from '../sql/client';
import { recordNotFound } from './errors';
import { orderBy, type PageRequest, type RecordQuery, type Visibility, whereClause } from './query';
import { columns, from, keyCondition } from './record-sql';
import type { Fragment, Queryable } from './sql';
import {
  type DataTable,
  keyFromText,
  present,
  type Row,
  readTable,
  type TableScope,
  unversioned,
  versioned,
} from './table';

/** Reading records (doc 3, Record operations): one record, and a page with its total. */

/** One record by its key; soft-deleted records only with `include_deleted`. */
export async function getRecord(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  visibility: Visibility,
): Promise<Row> {
  const row = await readTable(sql, scope, name, async (table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    const where = whereClause(sql, table, { conditions: [keyCondition(table, key)], visibility });
    const { current, rows } = unversioned(
      table,
      await sql`${versioned(sql, table, sql`SELECT ${columns(sql, table)} FROM ${from(sql, table)} WHERE ${where}`)}`,
    );
    return { current, value: rows[0] ? present(table, rows[0]) : undefined };
  });
  if (!row) throw recordNotFound(id);
  return row;
}

/** The statement of one page of a list: the matching records in list order (index-served by default). */
export function pageStatement(
  sql: Queryable,
  table: DataTable,
  where: Fragment,
  page: PageRequest,
): Fragment {
  return sql`SELECT ${columns(sql, table)} FROM ${from(sql, table)} WHERE ${where}
    ORDER BY ${orderBy(sql, table)} LIMIT ${page.pageSize} OFFSET ${(page.page - 1) * page.pageSize}`;
}

/** A page of records and the number of records that match. */
export async function listRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  buildQuery: (table: DataTable) => RecordQuery,
  page: PageRequest,
): Promise<{ records: Row[]; total: number }> {
  return readTable(sql, scope, name, async (table) => {
    const where = whereClause(sql, table, buildQuery(table));
    // The page and the total are independent: sent together, they cost one round trip, not two.
    const [counted, paged] = await Promise.all([
      sql`SELECT count(*)::integer AS total FROM ${from(sql, table)} WHERE ${where}`,
      sql`${versioned(sql, table, pageStatement(sql, table, where, page))}`,
    ]);
    const { current, rows } = unversioned(table, paged);
    const total = Number(counted[0]?.total ?? 0);
    return { current, value: { records: rows.map((row) => present(table, row)), total } };
  });
}

/** Reads a comma-separated or repeated query parameter. */
export function listParameter(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
