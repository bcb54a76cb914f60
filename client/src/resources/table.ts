import type { Transport } from '../core/transport.js';
import type { AnyRecord, Filter, Where } from './filters.js';
import {
  type AggregateQuery,
  type Edge,
  filterParams,
  type GraphQuery,
  graphParams,
  type ListAnswer,
  type ListQuery,
  type Page,
  pageOf,
  pagingParams,
  type SearchHit,
  sortParams,
  type TreeNode,
} from './queries.js';

const dataTemplate = '/api/apps/{app_slug}/datatables/{name}/data/';

/** The records of one data table. */
export class Table<T extends object = AnyRecord> {
  constructor(
    readonly client: Transport,
    readonly app: string,
    readonly name: string,
  ) {}

  get path(): string {
    return `/api/apps/${encodeURIComponent(this.app)}/datatables/${encodeURIComponent(this.name)}/data/`;
  }

  #call<R>(method: string, suffix: string, query?: URLSearchParams, body?: unknown): Promise<R> {
    return this.client.request<R>(method, `${this.path}${suffix}`, {
      ...(query ? { query } : {}),
      ...(body !== undefined ? { body } : {}),
      template: `${dataTemplate}${suffix ? '{id}/' : ''}`,
    });
  }

  /** The query string of a list: filters, sorting, paging, populate, visibility. */
  query(list: ListQuery<T> = {}): URLSearchParams {
    const query = new URLSearchParams();
    filterParams(list.filter, query);
    if (list.sort) sortParams(list.sort, query);
    if (list.paging) pagingParams(list.paging, query);
    if (list.populate) query.set('populate', list.populate === '*' ? '*' : list.populate.join(','));
    if (list.includeDeleted) query.set('include_deleted', 'true');
    if (list.onlyDeleted) query.set('only_deleted', 'true');
    return query;
  }

  /** One page of records. */
  async list(list: ListQuery<T> = {}): Promise<Page<T>> {
    return pageOf(await this.#call<ListAnswer<T>>('GET', '', this.query(list)));
  }

  /** Every record that matches, page by page (`pageSize` records per request, default 100, at most 1000). */
  async *all(list: Omit<ListQuery<T>, 'paging'> = {}, pageSize = 100): AsyncGenerator<T, void, undefined> {
    for (let offset = 0; ; offset += pageSize) {
      const page = await this.list({ ...list, paging: { offset, limit: pageSize } });
      yield* page.data;
      if (!page.hasMore || page.data.length === 0) return;
    }
  }

  /** Full-text search (a table with a `search_vector`): ranked best first unless `sort` is given. */
  async search(text: string, list: ListQuery<T> = {}): Promise<Page<SearchHit<T>>> {
    const query = this.query(list);
    query.set('search', text);
    return pageOf(await this.#call<ListAnswer<SearchHit<T>>>('GET', '', query));
  }

  /** Aggregates over the matching records: `{aggregates}` without `groupBy`, `{groups, total}` with it. */
  async aggregate(
    request: AggregateQuery<T>,
  ): Promise<{ aggregates: Record<string, unknown> } | { groups: AnyRecord[]; total: number }> {
    const query = new URLSearchParams();
    filterParams(request.filter, query);
    query.set('_aggregate', request.aggregates.join(','));
    if (request.groupBy?.length) query.set('_group_by', request.groupBy.join(','));
    for (const [key, comparisons] of Object.entries(request.having ?? {}))
      for (const [operator, value] of Object.entries(comparisons))
        query.append('_having', `${key}__${operator}=${value}`);
    if (request.paging) pagingParams(request.paging, query);
    if (request.includeDeleted) query.set('include_deleted', 'true');
    if (request.onlyDeleted) query.set('only_deleted', 'true');
    const answer = await this.#call<{
      data: AnyRecord[];
      aggregates?: Record<string, unknown>;
      total?: number;
    }>('GET', '', query);
    return answer.aggregates
      ? { aggregates: answer.aggregates }
      : { groups: answer.data, total: answer.total ?? 0 };
  }

  async get(
    id: string | number,
    options: { populate?: readonly string[] | '*'; includeDeleted?: boolean } = {},
  ): Promise<T> {
    const query = new URLSearchParams();
    if (options.populate) query.set('populate', options.populate === '*' ? '*' : options.populate.join(','));
    if (options.includeDeleted) query.set('include_deleted', 'true');
    return (await this.#call<{ data: T }>('GET', `${encodeURIComponent(id)}/`, query)).data;
  }

  async create(record: Partial<T>): Promise<T> {
    return (await this.#call<{ data: T }>('POST', '', undefined, record)).data;
  }

  /**
   * Creates many records, `chunkSize` per request (default and most 1000). Each request is one transaction; a
   * failing chunk throws, and the chunks before it stay created (`error.created` holds them).
   */
  async createMany(records: readonly Partial<T>[], chunkSize = 1000): Promise<T[]> {
    if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > 1000)
      throw new RangeError('createMany: chunkSize must be an integer from 1 to 1000.');
    const created: T[] = [];
    for (let start = 0; start < records.length; start += chunkSize) {
      try {
        created.push(
          ...(await this.#call<{ data: T[] }>('POST', '', undefined, records.slice(start, start + chunkSize)))
            .data,
        );
      } catch (error) {
        if (error instanceof Error) Object.assign(error, { created });
        throw error;
      }
    }
    return created;
  }

  /** Insert or update by the fields of one unique constraint; `created` says, per record, which were new. */
  async upsert(
    records: Partial<T> | readonly Partial<T>[],
    uniqueFields: readonly (keyof T & string)[],
  ): Promise<{ data: T[]; created: boolean[] }> {
    const query = new URLSearchParams({ unique_fields: uniqueFields.join(',') });
    const answer = await this.client.request<{ data: T | T[]; created?: boolean[] | boolean }>(
      'POST',
      `${this.path}upsert/`,
      { query, body: records, template: `${dataTemplate}upsert/` },
    );
    const data = Array.isArray(answer.data) ? answer.data : [answer.data];
    const created = Array.isArray(answer.created) ? answer.created : data.map(() => answer.created === true);
    return { data, created };
  }

  async update(id: string | number, changes: Partial<T>): Promise<T> {
    return (await this.#call<{ data: T }>('PATCH', `${encodeURIComponent(id)}/`, undefined, changes)).data;
  }

  /** Changes several records, each naming itself by `id`; all or nothing. */
  async updateMany(changes: readonly (Partial<T> & { id: string | number })[]): Promise<T[]> {
    return (await this.#call<{ data: T[] }>('PATCH', '', undefined, changes)).data;
  }

  /** Applies the same change to every record the filter matches (a filter is required). */
  async updateWhere(where: Where<T> | Filter<T>, changes: Partial<T>): Promise<{ data: T[]; total: number }> {
    const query = new URLSearchParams();
    filterParams(where, query);
    return this.#call('PATCH', '', query, changes);
  }

  /** Deletes one record (soft on a table with `is_deleted` unless `hard`). */
  async delete(id: string | number, options: { hard?: boolean } = {}): Promise<void> {
    const query = options.hard ? new URLSearchParams({ hard_delete: 'true' }) : undefined;
    await this.#call('DELETE', `${encodeURIComponent(id)}/`, query);
  }

  /** Deletes records by key (soft on a table with `is_deleted` unless `hard`); answers the keys deleted. */
  async deleteMany(
    ids: readonly (string | number)[],
    options: { hard?: boolean } = {},
  ): Promise<{ deleted: number; ids: (string | number)[] }> {
    const query = new URLSearchParams({ ids: ids.join(',') });
    if (options.hard) query.set('hard_delete', 'true');
    return this.#call('DELETE', '', query);
  }

  /** Brings a soft-deleted record back (`is_deleted` false). */
  async restore(id: string | number): Promise<T> {
    const query = new URLSearchParams({ include_deleted: 'true' });
    return (
      await this.#call<{ data: T }>('PATCH', `${encodeURIComponent(id)}/`, query, { is_deleted: false })
    ).data;
  }

  /** A record with its relatives: `{data, <type or inverse>: [records with _depth]}`. */
  async related(
    id: string | number,
    include: 'descendants' | 'ancestors' | 'both',
    options: GraphQuery = {},
  ): Promise<{ data: T } & Record<string, unknown>> {
    const query = graphParams(options);
    query.set('include', include);
    return this.#call('GET', `${encodeURIComponent(id)}/`, query);
  }

  /** Trees: from one record (`id`), or the natural roots among the records the list query matches. */
  async tree(
    options: GraphQuery & { id?: string | number; list?: ListQuery<T> } = {},
  ): Promise<{ data: TreeNode<T>[]; total: number }> {
    const query = options.id === undefined ? this.query(options.list) : new URLSearchParams();
    for (const [name, value] of graphParams(options)) query.set(name, value);
    query.set('format', 'tree');
    return this.#call('GET', options.id === undefined ? '' : `${encodeURIComponent(options.id)}/`, query);
  }

  /** The graph (`{nodes, edges}`) reached from one record or from the records the list query matches. */
  async graph(options: GraphQuery & { id?: string | number; list?: ListQuery<T> } = {}): Promise<{
    data: {
      nodes: T[];
      edges: {
        id: string;
        from: string | number;
        to: string | number;
        type: string;
        metadata: AnyRecord | null;
      }[];
    };
    total: number;
  }> {
    const query = options.id === undefined ? this.query(options.list) : new URLSearchParams();
    for (const [name, value] of graphParams(options)) query.set(name, value);
    query.set('format', 'graph');
    return this.#call('GET', options.id === undefined ? '' : `${encodeURIComponent(options.id)}/`, query);
  }

  /** The table's edges (`from_id → to_id` of a type). */
  get edges() {
    const path = `/api/apps/${encodeURIComponent(this.app)}/datatables/${encodeURIComponent(this.name)}/edges/`;
    const template = '/api/apps/{app_slug}/datatables/{name}/edges/';
    const client = this.client;
    return {
      async create(
        edges: readonly {
          from_id: string | number;
          to_id: string | number;
          type: string;
          metadata?: AnyRecord;
        }[],
      ): Promise<Edge[]> {
        return (await client.request<{ data: Edge[] }>('POST', path, { body: edges, template })).data;
      },
      async list(
        filters: {
          from_id?: string | number;
          to_id?: string | number;
          type?: string;
          page?: number;
          page_size?: number;
        } = {},
      ): Promise<{ data: Edge[]; total: number }> {
        return client.request('GET', path, { query: filters, template });
      },
      async delete(ids: readonly string[]): Promise<{ deleted: number; ids: string[] }> {
        return client.request('DELETE', path, { query: { ids: ids.join(',') }, template });
      },
    };
  }
}
