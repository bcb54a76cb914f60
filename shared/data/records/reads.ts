import type { Sql } from '../../sql/client';
import type { Fragment, Queryable } from '../common/fragments';
import { systemFields } from '../common/model';
import { type RecordQuery, type Visibility, whereClause } from '../query/conditions';
import { orderBy, type SortKey, type Window } from '../query/paging';
import { rankOrder, type SearchPlan, searchColumns, searchCondition, withRank } from '../query/search';
import {
  catalogRowText,
  catalogVersionColumn,
  type DataTable,
  keyFromText,
  present,
  type Row,
  readTable,
  type TableScope,
  unversioned,
  versioned,
  visibleColumns,
} from '../tables/data-table';
import { recordNotFound } from '../tables/errors';
import { populate, type Relationship } from './populate';
import { columns, from } from './statements';

/** Reading records (doc 3, Record operations): one record, and a page with its total. */

/** An identifier as PostgreSQL reads it quoted. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The text of the get-by-key statement of a table definition and visibility: the versioned read (`versioned`) of
 * `SELECT <columns> FROM <table> WHERE <key> = $2 [AND <visibility>]`, the catalog entry's id as $1 and its
 * `updated_at` as $3 (`catalogRowText`). Built once per
 * definition and kept beside it (a WeakMap on the `DataTable`, which lives as long as the bounded catalog cache holds
 * it), so a get by key builds no statement fragments; the text names the tenant's own schema and table, and a
 * definition belongs to one tenant, so no text is ever shared between tenants. The same statement as the fragments
 * of `versioned` and `whereClause` build (test/integration/data-key-read.test.ts compares what they read).
 */
const keyReads = new WeakMap<DataTable, Partial<Record<Visibility, string>>>();

export function keyReadText(table: DataTable, visibility: Visibility): string {
  let texts = keyReads.get(table);
  if (!texts) {
    texts = {};
    keyReads.set(table, texts);
  }
  const known = texts[visibility];
  if (known) return known;
  const deleted = quoted(systemFields.isDeleted);
  const parts = [`${quoted(table.key.name)} = $2`];
  if (visibility === 'live' && table.softDelete) parts.push(`${deleted} = false`);
  if (visibility === 'deleted') parts.push(table.softDelete ? `${deleted} = true` : 'false');
  const schema = quoted(table.schema);
  const text = `SELECT c.version AS ${quoted(catalogVersionColumn)}, r.*
    FROM (SELECT version FROM ${catalogRowText(schema, 3)}) AS c
    LEFT JOIN LATERAL (SELECT ${visibleColumns(table).map(quoted).join(', ')} FROM ${schema}.${quoted(table.physical)} WHERE ${parts.join(' AND ')}) AS r ON true`;
  texts[visibility] = text;
  return text;
}

/** One record by its key; soft-deleted records only with `include_deleted`. */
export async function getRecord(
  sql: Sql,
  scope: TableScope,
  name: string,
  id: string,
  visibility: Visibility,
  relationships: (table: DataTable) => Relationship[] = () => [],
): Promise<Row> {
  let opened: DataTable | undefined;
  let embed: Relationship[] = [];
  const row = await readTable(sql, scope, name, async (table) => {
    const key = keyFromText(table, id);
    if (key === undefined) throw recordNotFound(id);
    opened = table;
    embed = relationships(table);
    const { current, rows } = unversioned(
      table,
      await sql.unsafe(keyReadText(table, visibility), [table.entry.id, key, table.entry.updated_at], {
        prepare: sql.options.prepare,
      }),
    );
    return { current, value: rows[0] ? present(table, rows[0]) : undefined };
  });
  if (!row) throw recordNotFound(id);
  if (opened && embed.length > 0) await populate(sql, scope, opened, [row], embed);
  return row;
}

/** What a list reads: the records (filters, visibility), their order, an optional search, and what to embed. */
export interface ListPlan {
  query: RecordQuery;
  sort: SortKey[];
  search?: SearchPlan;
  populate?: Relationship[];
  /** A further condition on the records (the graph's natural roots). */
  where?: Fragment;
}

/** The statement of one page of a list: the matching records in list order (index-served by default). */
export function pageStatement(
  sql: Queryable,
  table: DataTable,
  where: Fragment,
  plan: Pick<ListPlan, 'sort' | 'search'>,
  window: Window,
): Fragment {
  const { search } = plan;
  // A search is ordered by rank unless the request gives a sort.
  const first = search && plan.sort.length === 0 ? rankOrder(sql) : undefined;
  const extra = search ? sql`, ${searchColumns(sql, search)}` : sql``;
  return sql`SELECT ${columns(sql, table)}${extra} FROM ${from(sql, table)} WHERE ${where}
    ORDER BY ${orderBy(sql, table, plan.sort, first)} LIMIT ${window.limit} OFFSET ${window.offset}`;
}

function whereOf(sql: Queryable, table: DataTable, plan: ListPlan): Fragment {
  const query = whereClause(sql, table, plan.query);
  const where = plan.where ? sql`${query} AND ${plan.where}` : query;
  return plan.search ? sql`${where} AND ${searchCondition(sql, plan.search)}` : where;
}

/** A page of records and the number of records that match. */
export async function listRecords(
  sql: Sql,
  scope: TableScope,
  name: string,
  buildPlan: (table: DataTable) => ListPlan,
  window: Window,
): Promise<{ records: Row[]; total: number }> {
  const { table, records, total, plan } = await readTable(sql, scope, name, async (table) => {
    const plan = buildPlan(table);
    const where = whereOf(sql, table, plan);
    // The page and the total are independent: sent together, they cost one round trip, not two.
    const [counted, paged] = await Promise.all([
      sql`SELECT count(*)::integer AS total FROM ${from(sql, table)} WHERE ${where}`,
      sql`${versioned(sql, table, pageStatement(sql, table, where, plan, window))}`,
    ]);
    const { current, rows } = unversioned(table, paged);
    const total = Number(counted[0]?.total ?? 0);
    const records = rows.map((row) =>
      plan.search ? withRank(present(table, row), row) : present(table, row),
    );
    return { current, value: { table, records, total, plan } };
  });
  if (plan.populate && plan.populate.length > 0) await populate(sql, scope, table, records, plan.populate);
  return { records, total };
}

/** Reads a comma-separated or repeated query parameter. */
export function listParameter(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
