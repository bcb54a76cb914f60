import { Filter, filter as makeFilter, type Where } from './filters.js';

/** The query shapes of a table's records and how each goes into a query string (docs/client.md). */

/** Sorting: `['-price', 'title']`, or `[{field: 'price', order: 'desc'}]`. */
export type Sort<T> = readonly (
  | (keyof T & string)
  | `-${keyof T & string}`
  | { field: keyof T & string; order: 'asc' | 'desc' }
)[];

/** The three paging forms of the API: pages, offset and limit, or a 0-based `[start, end)` window. At most 1000 records. */
export type Paging =
  | { page: number; pageSize?: number }
  | { offset: number; limit: number }
  | { start: number; end: number };

export interface ListQuery<T> {
  filter?: Where<T> | Filter<T>;
  sort?: Sort<T>;
  paging?: Paging;
  /** Embed referenced records: relationship names, or `'*'`. */
  populate?: readonly string[] | '*';
  includeDeleted?: boolean;
  onlyDeleted?: boolean;
}

/** One page of records. `page`/`pageSize` for page paging, `offset`/`limit` for the other two. */
export interface Page<T> {
  data: T[];
  /** Every match, not only this page. */
  total: number;
  page?: number;
  pageSize?: number;
  offset?: number;
  limit?: number;
  hasMore: boolean;
}

/** A search hit: the record with its `ts_rank` and an excerpt with the matches in `<b>…</b>`. */
export type SearchHit<T> = T & { rank: number; excerpt: string };

type AggregateFunction =
  | 'count'
  | 'sum'
  | 'avg'
  | 'min'
  | 'max'
  | 'stddev'
  | 'variance'
  | 'array_agg'
  | 'json_agg'
  | 'string_agg';
/** `count(*)` or `<function>(<field>)`. */
export type Aggregate<T> = 'count(*)' | `${AggregateFunction}(${keyof T & string})`;
type Comparison = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';

export interface AggregateQuery<T> {
  aggregates: readonly Aggregate<T>[];
  groupBy?: readonly (keyof T & string)[];
  /** Keeps the groups whose aggregate (by its key: `count`, `sum_amount`) satisfies each comparison. */
  having?: Record<string, Partial<Record<Comparison, number>>>;
  filter?: Where<T> | Filter<T>;
  paging?: Paging;
  includeDeleted?: boolean;
  onlyDeleted?: boolean;
}

export interface GraphQuery {
  /** Levels to walk (server maximum 10 by default). */
  depth?: number;
  /** Relationship types to walk; default all. */
  relationshipTypes?: readonly string[];
}

export interface Edge {
  id: string;
  from_id: string | number;
  to_id: string | number;
  type: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
}

/** A record in a tree answer: its depth, the relationship that reached it, and the records below it. */
export type TreeNode<T> = T & {
  _depth?: number;
  _relationship_type?: string;
  /** Reached again (a cycle or a second path): its children are not repeated. */
  _repeated?: boolean;
  children?: TreeNode<T>[];
};

export function sortParams<T>(sort: Sort<T>, query: URLSearchParams): void {
  if (sort.length === 0) return;
  const fields: string[] = [];
  const orders: string[] = [];
  for (const item of sort) {
    if (typeof item === 'string') {
      const descending = item.startsWith('-');
      fields.push(descending ? item.slice(1) : item);
      orders.push(descending ? 'desc' : 'asc');
    } else {
      fields.push(item.field);
      orders.push(item.order);
    }
  }
  query.set('_sort', fields.join(','));
  query.set('_order', orders.join(','));
}

export function pagingParams(paging: Paging, query: URLSearchParams): void {
  if ('page' in paging) {
    query.set('page', String(paging.page));
    if (paging.pageSize !== undefined) query.set('page_size', String(paging.pageSize));
  } else if ('offset' in paging) {
    query.set('offset', String(paging.offset));
    query.set('limit', String(paging.limit));
  } else {
    query.set('_start', String(paging.start));
    query.set('_end', String(paging.end));
  }
}

export function filterParams<T>(where: Where<T> | Filter<T> | undefined, query: URLSearchParams): void {
  if (!where) return;
  const built = where instanceof Filter ? where : makeFilter<T>(where);
  for (const [name, value] of built.params()) query.append(name, value);
}

/** A list route's answer, before it becomes a `Page`. */
export interface ListAnswer<T> {
  data: T[];
  total: number;
  page?: number;
  page_size?: number;
  meta?: { offset: number; limit: number; count: number; has_more: boolean };
}

export function pageOf<T>(answer: ListAnswer<T>): Page<T> {
  if (answer.meta) {
    return {
      data: answer.data,
      total: answer.total,
      offset: answer.meta.offset,
      limit: answer.meta.limit,
      hasMore: answer.meta.has_more,
    };
  }
  const page = answer.page ?? 1;
  const pageSize = answer.page_size ?? answer.data.length;
  return { data: answer.data, total: answer.total, page, pageSize, hasMore: page * pageSize < answer.total };
}

export function graphParams(options: GraphQuery): URLSearchParams {
  const query = new URLSearchParams();
  if (options.depth !== undefined) query.set('depth', String(options.depth));
  if (options.relationshipTypes?.length) query.set('relationship_type', options.relationshipTypes.join(','));
  return query;
}
