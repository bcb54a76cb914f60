import type { CrudFilter, CrudOperators, DataProvider } from '@refinedev/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, createClient, DataError, ok } from '../../client/src/index';
import { authProvider, dataProvider, UnsupportedQueryError } from '../../client/src/refine';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';
import { browserFetch } from './browser-fetch';

/** refine's DataProvider and AuthProvider (types from @refinedev/core) against the running local server. */

let platform: TestPlatform;
let tenant: Tenant;
let api: Client;
let provider: DataProvider;
const password = 'Velvet-Harbor-Quill-42';

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  api = createClient({ baseUrl: platform.baseUrl, site: tenant.site.slug, auth: { type: 'bearer' } });
  await api.signIn(tenant.ownerUser.username, password);
  await api.app(tenant.app.slug).create({
    name: 'posts',
    schema: {
      fields: [
        { name: 'title', type: 'string', constraints: { required: true } },
        { name: 'status', type: 'string' },
        { name: 'views', type: 'integer' },
        { name: 'created_at', type: 'datetime' },
      ],
    },
  });
  provider = dataProvider(api, { app: tenant.app.slug });
  await provider.createMany?.({
    resource: 'posts',
    variables: [
      { title: 'Hello World', status: 'published', views: 10 },
      { title: 'hello again', status: 'draft', views: 20 },
      { title: 'Goodbye', status: 'published', views: 30 },
      { title: 'Untitled', status: null, views: null },
    ],
  });
});
afterAll(async () => {
  await platform.stop();
});

async function titlesFor(filters: CrudFilter[]): Promise<string[]> {
  const { data, total } = await provider.getList<{ title: string }>({ resource: 'posts', filters });
  expect(total).toBe(data.length);
  return data.map((record) => record.title).sort();
}

type Logical = Exclude<CrudOperators, 'or' | 'and'>;
/** Every refine operator but the two groups: a field, a value and the titles it must select. */
const operatorCases: Record<Logical, [string, unknown, string[]]> = {
  eq: ['status', 'draft', ['hello again']],
  ne: ['status', 'draft', ['Goodbye', 'Hello World', 'Untitled']],
  eqs: ['title', 'Goodbye', ['Goodbye']],
  nes: ['title', 'Goodbye', ['Hello World', 'Untitled', 'hello again']],
  lt: ['views', 20, ['Hello World']],
  gt: ['views', 20, ['Goodbye']],
  lte: ['views', 20, ['Hello World', 'hello again']],
  gte: ['views', 20, ['Goodbye', 'hello again']],
  in: ['views', [10, 30], ['Goodbye', 'Hello World']],
  nin: ['views', [10, 30], ['Untitled', 'hello again']],
  ina: ['status', ['DRAFT'], ['hello again']],
  nina: ['status', ['DRAFT'], ['Goodbye', 'Hello World', 'Untitled']],
  contains: ['title', 'HELLO', ['Hello World', 'hello again']],
  ncontains: ['title', 'HELLO', ['Goodbye', 'Untitled']],
  containss: ['title', 'Hello', ['Hello World']],
  ncontainss: ['title', 'Hello', ['Goodbye', 'Untitled', 'hello again']],
  between: ['views', [15, 30], ['Goodbye', 'hello again']],
  nbetween: ['views', [15, 30], ['Hello World', 'Untitled']],
  null: ['views', undefined, ['Untitled']],
  nnull: ['views', undefined, ['Goodbye', 'Hello World', 'hello again']],
  startswith: ['title', 'HELLO', ['Hello World', 'hello again']],
  nstartswith: ['title', 'HELLO', ['Goodbye', 'Untitled']],
  startswiths: ['title', 'hello', ['hello again']],
  nstartswiths: ['title', 'hello', ['Goodbye', 'Hello World', 'Untitled']],
  endswith: ['title', 'AGAIN', ['hello again']],
  nendswith: ['title', 'AGAIN', ['Goodbye', 'Hello World', 'Untitled']],
  endswiths: ['title', 'World', ['Hello World']],
  nendswiths: ['title', 'World', ['Goodbye', 'Untitled', 'hello again']],
};

describe('refine data provider: filters', () => {
  for (const [operator, [field, value, expected]] of Object.entries(operatorCases)) {
    it(`maps "${operator}"`, async () => {
      expect(await titlesFor([{ field, operator: operator as Logical, value }])).toEqual(expected);
    });
  }

  it('flattens "and" groups (every filter combines with AND)', async () => {
    const filters: CrudFilter[] = [
      { operator: 'and', value: [{ field: 'status', operator: 'eq', value: 'published' }] },
      { field: 'views', operator: 'gt', value: 15 },
    ];
    expect(await titlesFor(filters)).toEqual(['Goodbye']);
  });

  it('refuses "or" groups with an error naming them', async () => {
    const filters: CrudFilter[] = [
      {
        operator: 'or',
        value: [
          { field: 'status', operator: 'eq', value: 'draft' },
          { field: 'views', operator: 'gt', value: 25 },
        ],
      },
    ];
    const error = await provider.getList({ resource: 'posts', filters }).catch((caught) => caught);
    expect(error).toBeInstanceOf(UnsupportedQueryError);
    expect(error.message).toMatch(/"or" filter group/);
  });
});

describe('refine data provider: sorting, paging, CRUD', () => {
  it('sorts and pages', async () => {
    const first = await provider.getList<{ title: string }>({
      resource: 'posts',
      sorters: [{ field: 'views', order: 'desc' }],
      pagination: { currentPage: 1, pageSize: 2 },
    });
    expect(first.total).toBe(4);
    expect(first.data.map((record) => record.title)).toEqual(['Untitled', 'Goodbye']);
    const second = await provider.getList<{ title: string }>({
      resource: 'posts',
      sorters: [{ field: 'views', order: 'desc' }],
      pagination: { currentPage: 2, pageSize: 2 },
    });
    expect(second.data.map((record) => record.title)).toEqual(['hello again', 'Hello World']);
    const off = await provider.getList({ resource: 'posts', pagination: { mode: 'off' } });
    expect(off.data).toHaveLength(4);
  });

  it('creates, reads, updates and deletes', async () => {
    const created = await provider.create<{ id: string; title: string }>({
      resource: 'posts',
      variables: { title: 'New', views: 1 },
    });
    const id = created.data.id;
    expect((await provider.getOne<{ title: string }>({ resource: 'posts', id })).data.title).toBe('New');
    const updated = await provider.update<{ views: number }>({
      resource: 'posts',
      id,
      variables: { views: 2 },
    });
    expect(updated.data.views).toBe(2);
    const more = await provider.createMany?.<{ id: string }>({
      resource: 'posts',
      variables: [{ title: 'A' }, { title: 'B' }],
    });
    const ids = more?.data.map((record) => record.id) ?? [];
    const many = await provider.getMany?.<{ title: string }>({ resource: 'posts', ids: [id, ...ids] });
    expect(many?.data.map((record) => record.title).sort()).toEqual(['A', 'B', 'New']);
    const changed = await provider.updateMany?.<{ status: string }>({
      resource: 'posts',
      ids,
      variables: { status: 'archived' },
    });
    expect(changed?.data.map((record) => record.status)).toEqual(['archived', 'archived']);
    await provider.deleteOne({ resource: 'posts', id });
    const missing = await provider.getOne({ resource: 'posts', id }).catch((caught) => caught);
    expect(missing).toBeInstanceOf(DataError);
    expect(missing.statusCode).toBe(404);
    const deleted = await provider.deleteMany?.({ resource: 'posts', ids });
    expect(deleted?.data).toHaveLength(2);
    expect((await provider.getList({ resource: 'posts' })).total).toBe(4);
  });

  it('custom calls any path, with filters and sorters', async () => {
    if (!provider.custom) throw new Error('the provider has no custom');
    const { data } = await provider.custom<{ data: { title: string }[] }>({
      url: `${platform.baseUrl}/api/apps/${tenant.app.slug}/datatables/posts/data/`,
      method: 'get',
      filters: [{ field: 'status', operator: 'eq', value: 'published' }],
      sorters: [{ field: 'title', order: 'asc' }],
    });
    expect(data.data.map((record) => record.title)).toEqual(['Goodbye', 'Hello World']);
  });
});

describe('refine auth provider (browser session)', () => {
  it('logs in, checks, reads identity and permissions, logs out', async () => {
    const role = ok(await api.POST('/api/roles/', { body: { name: 'Editors' } })).data;
    await api.POST('/api/users/{username}/roles', {
      params: { path: { username: tenant.ownerUser.username } },
      body: { role_slugs: [role.slug] },
    });
    const browser = browserFetch(new URL(platform.baseUrl).origin);
    const session = createClient({
      baseUrl: platform.baseUrl,
      site: tenant.site.slug,
      auth: { type: 'session' },
      fetch: browser.fetch,
    });
    const auth = authProvider(session);
    expect(await auth.check()).toMatchObject({ authenticated: false, logout: true });
    const refused = await auth.login({ username: tenant.ownerUser.username, password: 'wrong-password' });
    expect(refused.success).toBe(false);
    expect(await auth.login({ username: tenant.ownerUser.username, password })).toMatchObject({
      success: true,
    });
    expect(await auth.check()).toEqual({ authenticated: true });
    expect(await auth.getIdentity?.()).toMatchObject({ username: tenant.ownerUser.username });
    const permissions = (await auth.getPermissions?.()) as { site_roles: { slug: string }[] };
    expect(permissions.site_roles.map((item) => item.slug)).toContain(role.slug);
    expect(await auth.logout({})).toMatchObject({ success: true });
    expect(await auth.check()).toMatchObject({ authenticated: false });
    expect(await auth.getIdentity?.()).toBeNull();
  });
});
