import type {
  AuthProvider,
  BaseRecord,
  CrudFilter,
  CrudSort,
  DataProvider,
  LogicalFilter,
  Pagination,
} from '@refinedev/core';
import { ApiError } from '../core/errors.js';
import type { Transport } from '../core/transport.js';
import { Filter, type FilterOperator } from '../resources/filters.js';
import type { Paging, Sort } from '../resources/queries.js';
import { Tables } from '../resources/tables.js';

/**
 * refine's data provider and auth provider over the typed client. Only types come from `@refinedev/core`: this
 * module has no run-time dependency on refine or React.
 */

/** refine's operators and the API's: the same names, except `eqs`/`nes` (equality is case-sensitive already). */
const operatorOf: Record<LogicalFilter['operator'], FilterOperator> = {
  eq: 'eq',
  ne: 'ne',
  eqs: 'eq',
  nes: 'ne',
  lt: 'lt',
  gt: 'gt',
  lte: 'lte',
  gte: 'gte',
  in: 'in',
  nin: 'nin',
  ina: 'ina',
  nina: 'nina',
  contains: 'contains',
  ncontains: 'ncontains',
  containss: 'containss',
  ncontainss: 'ncontainss',
  between: 'between',
  nbetween: 'nbetween',
  null: 'null',
  nnull: 'nnull',
  startswith: 'startswith',
  nstartswith: 'nstartswith',
  startswiths: 'startswiths',
  nstartswiths: 'nstartswiths',
  endswith: 'endswith',
  nendswith: 'nendswith',
  endswiths: 'endswiths',
  nendswiths: 'nendswiths',
};

/** The error for what the query language cannot say. */
export class UnsupportedQueryError extends Error {
  override name = 'UnsupportedQueryError';
}

/** refine's filters as the API's: conditions combine with AND; an `and` group is flattened, `or` refused. */
export function toFilter(filters: readonly CrudFilter[] | undefined): Filter<BaseRecord> {
  const built = new Filter<BaseRecord>();
  const add = (items: readonly CrudFilter[]) => {
    for (const item of items) {
      if (item.operator === 'or')
        throw new UnsupportedQueryError(
          'The data API cannot express an "or" filter group: its filters all combine with AND. Use an "in" filter for alternatives on one field, or several requests.',
        );
      if (item.operator === 'and') {
        add(item.value);
        continue;
      }
      const condition = item as LogicalFilter;
      const operator = operatorOf[condition.operator];
      if (!operator)
        throw new UnsupportedQueryError(
          `The data API has no filter operator "${String(condition.operator)}".`,
        );
      // refine passes `null`/`nnull` with any value: the API wants `true` (is null / has a value).
      const value = operator === 'null' || operator === 'nnull' ? true : condition.value;
      if (value === undefined || (Array.isArray(value) && value.length === 0 && operator !== 'between'))
        continue;
      built.where(condition.field, operator, value as never);
    }
  };
  add(filters ?? []);
  return built;
}

export function toSort(sorters: readonly CrudSort[] | undefined): Sort<BaseRecord> {
  return (sorters ?? []).map((sorter) => ({ field: sorter.field, order: sorter.order }));
}

/** refine's pagination (`currentPage`, `pageSize`, `mode`) as page paging; `mode: 'off'` reads nothing page-wise. */
export function toPaging(pagination: Pagination | undefined): Paging | undefined {
  if (pagination?.mode === 'off') return undefined;
  return { page: pagination?.currentPage ?? 1, pageSize: pagination?.pageSize ?? 10 };
}

export interface DataProviderOptions {
  /** The app whose data tables are refine's resources (`meta.app` overrides it per call). */
  app: string;
}

export function dataProvider(client: Transport, options: DataProviderOptions): DataProvider {
  const table = (resource: string, meta?: Record<string, unknown>) =>
    new Tables(client, typeof meta?.app === 'string' ? meta.app : options.app).table<BaseRecord>(resource);
  const provider: DataProvider = {
    getApiUrl: () => client.baseUrl,
    async getList({ resource, pagination, sorters, filters, meta }) {
      const records = table(resource, meta);
      const list = { filter: toFilter(filters), sort: toSort(sorters) };
      const paging = toPaging(pagination);
      if (!paging) {
        const data = [];
        for await (const record of records.all(list, 1000)) data.push(record);
        return { data: data as never[], total: data.length };
      }
      const page = await records.list({ ...list, paging });
      return { data: page.data as never[], total: page.total };
    },
    async getMany({ resource, ids, meta }) {
      if (ids.length === 0) return { data: [] };
      const filter = new Filter<BaseRecord>().where('id', 'in', ids);
      const data = [];
      for await (const record of table(resource, meta).all({ filter }, 1000)) data.push(record);
      return { data: data as never[] };
    },
    async getOne({ resource, id, meta }) {
      return { data: (await table(resource, meta).get(id)) as never };
    },
    async create({ resource, variables, meta }) {
      return { data: (await table(resource, meta).create(variables as BaseRecord)) as never };
    },
    async createMany({ resource, variables, meta }) {
      return { data: (await table(resource, meta).createMany(variables as BaseRecord[])) as never[] };
    },
    async update({ resource, id, variables, meta }) {
      return { data: (await table(resource, meta).update(id, variables as BaseRecord)) as never };
    },
    async updateMany({ resource, ids, variables, meta }) {
      const changes = ids.map((id) => ({ ...(variables as BaseRecord), id }));
      return { data: (await table(resource, meta).updateMany(changes)) as never[] };
    },
    async deleteOne({ resource, id, meta }) {
      const records = table(resource, meta);
      await records.delete(id, { hard: meta?.hardDelete === true });
      return { data: { id } as never };
    },
    async deleteMany({ resource, ids, meta }) {
      const answer = await table(resource, meta).deleteMany(ids);
      return { data: answer.ids.map((id) => ({ id })) as never[] };
    },
    async custom({ url, method, filters, sorters, payload, query, headers }) {
      const [path = '', existing = ''] = url.split('?', 2);
      const search = new URLSearchParams(existing);
      for (const [name, value] of toFilter(filters).params()) search.append(name, value);
      const sort = toSort(sorters);
      if (sort.length > 0) {
        search.set('_sort', sort.map((item) => (typeof item === 'object' ? item.field : item)).join(','));
        search.set('_order', sorters?.map((sorter) => sorter.order).join(',') ?? '');
      }
      for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>))
        if (value !== undefined) search.set(name, String(value));
      const data = await client.request(method, path, {
        query: search,
        ...(payload !== undefined ? { body: payload } : {}),
        headers: (headers ?? {}) as Record<string, string>,
      });
      return { data: data as never };
    },
  };
  return provider;
}

/** The signed-in user, as `GET /api/cloud/users/me/` shows it. */
export interface Identity {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_superuser: boolean;
  [key: string]: unknown;
}

/**
 * refine's auth provider for the browser session (a client created with `auth: {type: 'session'}`): login and
 * logout start and end the `sessionid` session, check and getIdentity read the signed-in user, getPermissions
 * reads the user's roles on the client's site (`GET /api/users/me/roles`).
 */
export function authProvider(client: Transport, options: { loginPath?: string } = {}): AuthProvider {
  const redirectTo = options.loginPath ?? '/login';
  const failure = (error: unknown) => ({
    success: false,
    error: error instanceof Error ? error : new Error(String(error)),
  });
  return {
    async login({ username, email, password }: { username?: string; email?: string; password: string }) {
      try {
        await client.signIn(username ?? email ?? '', password);
        return { success: true, redirectTo: '/' };
      } catch (error) {
        return failure(error);
      }
    },
    async logout() {
      try {
        await client.signOut();
        return { success: true, redirectTo };
      } catch (error) {
        return failure(error);
      }
    },
    async check() {
      try {
        await client.GET('/api/cloud/users/me/');
        return { authenticated: true };
      } catch (error) {
        if (error instanceof ApiError && error.status === 401)
          return { authenticated: false, logout: true, redirectTo, error };
        throw error;
      }
    },
    async onError(error: unknown) {
      if (error instanceof ApiError && error.status === 401) return { logout: true, redirectTo, error };
      return {};
    },
    async getIdentity() {
      try {
        const { data } = await client.GET('/api/cloud/users/me/');
        return data as Identity;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    async getPermissions() {
      const { data } = await client.GET('/api/users/{username}/roles', {
        params: { path: { username: 'me' } },
      });
      return data?.data;
    },
  };
}
