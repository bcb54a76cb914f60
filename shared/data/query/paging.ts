import { ValidationError } from '../../errors';
import { typeRule } from '../common/field-types';
import { type Fragment, join, type Queryable } from '../common/fragments';
import type { FieldDef } from '../common/model';
import { systemFields } from '../common/model';
import type { DataTable } from '../tables/data-table';

/**
 * Sorting and paging of record lists. Sorting: `_sort` with `_order`, else `ordering` (`-` for descending); the key
 * always breaks ties so pages never overlap. Paging: `_start`/`_end`, else `limit`/`offset`, else
 * `page`/`page_size` (docs/data-tables.md, Query language).
 */

/** Records per page: the default and the largest a client may ask for, in any of the three spellings. */
export const recordPage = { defaultSize: 100, maxSize: 1000, maxPage: 1_000_000 } as const;

/** The largest offset a client may ask for: as far as the largest page of page-based paging reaches. */
export const maxOffset = recordPage.maxPage * recordPage.maxSize;

export interface SortKey {
  field: FieldDef;
  descending: boolean;
}

/** Which records of the list: `offset` and `limit`; `page` when the request paged by page number. */
export interface Window {
  offset: number;
  limit: number;
  page?: { page: number; page_size: number };
}

/** The paging parameters as the route's query schema reads them (integers, bounded). */
export interface PagingQuery {
  page: number;
  page_size: number;
  _start?: number;
  _end?: number;
  limit?: number;
  offset?: number;
}

/** The window of a request, by the precedence above. */
export function windowOf(query: PagingQuery): Window {
  if (query._start !== undefined || query._end !== undefined) {
    const start = query._start ?? 0;
    const end = query._end ?? start + recordPage.defaultSize;
    if (end < start) throw ValidationError.field('_end', 'Must not be less than _start.');
    if (end - start > recordPage.maxSize)
      throw ValidationError.field('_end', `At most ${recordPage.maxSize} records per page (_end - _start).`);
    return { offset: start, limit: end - start };
  }
  if (query.limit !== undefined || query.offset !== undefined)
    return { offset: query.offset ?? 0, limit: query.limit ?? recordPage.defaultSize };
  const { page, page_size } = query;
  return { offset: (page - 1) * page_size, limit: page_size, page: { page, page_size } };
}

function sortable(table: DataTable, name: string, parameter: string): FieldDef {
  const field = table.fields.get(name);
  if (!field) throw ValidationError.field(parameter, `Unknown field "${name}" of table "${table.name}".`);
  if (!typeRule(field.type).comparable)
    throw ValidationError.field(parameter, `Field "${name}" cannot be sorted.`);
  return field;
}

const listOf = (text: string) => text.split(',').map((part) => part.trim());

/** The sort a request asks for (empty: the default order). */
export function sortOf(table: DataTable, params: URLSearchParams): SortKey[] {
  const sort = params.get('_sort');
  if (sort !== null) {
    const names = listOf(sort);
    const orders = listOf(params.get('_order') ?? '');
    if (orders.length > names.length)
      throw ValidationError.field('_order', 'Give at most one direction per _sort field.');
    return names.map((name, index) => {
      const order = (orders[index] || 'asc').toLowerCase();
      if (order !== 'asc' && order !== 'desc') throw ValidationError.field('_order', 'Must be asc or desc.');
      return { field: sortable(table, name, '_sort'), descending: order === 'desc' };
    });
  }
  const ordering = params.get('ordering');
  if (ordering === null) return [];
  return listOf(ordering).map((name) => {
    const descending = name.startsWith('-');
    return { field: sortable(table, descending ? name.slice(1) : name, 'ordering'), descending };
  });
}

/** The ORDER BY of a list: the requested sort (or creation time), then the key, so that pages are stable. */
export function orderBy(
  sql: Queryable,
  table: DataTable,
  sort: readonly SortKey[] = [],
  first?: Fragment,
): Fragment {
  const parts: Fragment[] = first ? [first] : [];
  for (const key of sort)
    parts.push(key.descending ? sql`${sql(key.field.name)} DESC` : sql`${sql(key.field.name)} ASC`);
  if (sort.length === 0 && !first && table.hasCreatedAt) parts.push(sql`${sql(systemFields.createdAt)}`);
  if (!sort.some((key) => key.field.name === table.key.name)) parts.push(sql`${sql(table.key.name)}`);
  return join(sql, parts);
}
