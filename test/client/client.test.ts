import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  createClient,
  DataError,
  DetailError,
  filter,
  ok,
  RolesError,
  type Table,
} from '../../client/src/index';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant } from '../support/tenant';
import { browserFetch, countingFetch } from './browser-fetch';

/** The typed client against the running local server: auth, errors, retries and the data helpers. */

let platform: TestPlatform;
let tenant: Tenant;
let owner: { username: string; password: string };
let api: Client;

interface Book {
  id: string;
  title: string;
  status: string | null;
  pages: number | null;
  price: number | null;
  published_on: string | null;
  metadata: Record<string, unknown> | null;
  in_stock: boolean | null;
  rank?: number;
}
let books: Table<Book>;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  // createTenant's owner has createUser's default password.
  owner = { username: tenant.ownerUser.username, password: 'Velvet-Harbor-Quill-42' };
  api = createClient({ baseUrl: platform.baseUrl, site: tenant.site.slug, auth: { type: 'bearer' } });
  await api.signIn(owner.username, owner.password);
  const tables = api.app(tenant.app.slug);
  await tables.create({
    name: 'books',
    schema: {
      fields: [
        { name: 'title', type: 'string', constraints: { required: true } },
        { name: 'status', type: 'string' },
        { name: 'pages', type: 'integer' },
        { name: 'price', type: 'number' },
        { name: 'published_on', type: 'date' },
        { name: 'metadata', type: 'object' },
        { name: 'in_stock', type: 'boolean' },
        { name: 'isbn', type: 'string', constraints: { unique: true } },
        { name: 'created_at', type: 'datetime' },
        { name: 'search_vector', type: 'tsvector', 'x-search': { fields: ['title'], language: 'english' } },
      ],
    },
  });
  books = tables.table<Book>('books');
  await books.createMany([
    {
      title: 'Dune',
      status: 'published',
      pages: 412,
      price: 9.5,
      published_on: '1965-08-01',
      in_stock: true,
      metadata: { specs: { weight: 5, cover: 'soft' }, tags: ['sf'] },
    },
    {
      title: 'Dune Messiah',
      status: 'published',
      pages: 256,
      price: 7,
      published_on: '1969-10-15',
      in_stock: false,
      metadata: { specs: { weight: 3, cover: 'hard' } },
    },
    {
      title: 'Children of Dune',
      status: 'draft',
      pages: 444,
      price: 12.25,
      published_on: '1976-04-01',
      metadata: { specs: { weight: '5' } },
    },
    { title: 'The Running Man', status: 'draft', pages: 219, price: null, published_on: null },
    { title: 'running wild', status: null, pages: 120, price: 3 },
  ]);
});
afterAll(async () => {
  await platform.stop();
});

const titles = (records: readonly { title: string }[]) => records.map((record) => record.title).sort();

describe('typed client: calls and auth', () => {
  it('makes typed calls (openapi-fetch) and reads the typed answer', async () => {
    const apps = ok(await api.GET('/api/apps/'));
    expect(JSON.stringify(apps)).toContain(tenant.app.slug);
    const me = ok(await api.GET('/api/cloud/users/me/'));
    expect(me.username).toBe(owner.username);
  });

  it('refreshes once on a 401, with rotation, and coalesces concurrent refreshes into one', async () => {
    const counter = countingFetch();
    const seen: unknown[] = [];
    const first = createClient({ baseUrl: platform.baseUrl, auth: { type: 'bearer' } });
    await first.signIn(owner.username, owner.password);
    const pair = first.tokens();
    if (!pair) throw new Error('no tokens');
    // An access token the API refuses, with a good refresh token: every request gets a 401 first.
    const client = createClient({
      baseUrl: platform.baseUrl,
      site: tenant.site.slug,
      fetch: counter.fetch,
      auth: {
        type: 'bearer',
        access: 'not-a-token',
        refresh: pair.refresh,
        onTokens: (tokens) => seen.push(tokens),
      },
    });
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.GET('/api/cloud/users/me/')));
    expect(answers.map((answer) => answer.data?.username)).toEqual(Array(5).fill(owner.username));
    expect(counter.count('POST /api/auth/jwt/refresh/')).toBe(1);
    expect(seen).toHaveLength(1);
    const rotated = client.tokens();
    expect(rotated?.refresh).toBeTruthy();
    expect(rotated?.refresh).not.toBe(pair.refresh);
    // The presented refresh token was rotated: the API refuses it now.
    const replay = await fetch(`${platform.baseUrl}/api/auth/jwt/refresh/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh: pair.refresh }),
    });
    expect(replay.status).toBe(401);
  });

  it('throws the 401 when the refresh is refused too, after one refresh', async () => {
    const counter = countingFetch();
    const client = createClient({
      baseUrl: platform.baseUrl,
      fetch: counter.fetch,
      auth: { type: 'bearer', access: 'not-a-token', refresh: 'not-a-refresh-token' },
    });
    const error = await client.GET('/api/cloud/users/me/').catch((caught) => caught);
    expect(error).toBeInstanceOf(DetailError);
    expect(error.status).toBe(401);
    expect(counter.count('POST /api/auth/jwt/refresh/')).toBe(1);
    expect(counter.count('GET /api/cloud/users/me/')).toBe(1);
    expect(client.tokens()).toBeUndefined();
  });

  it('signs in with the browser session cookie (credentials included, Origin sent by the browser)', async () => {
    const browser = browserFetch(new URL(platform.baseUrl).origin);
    const client = createClient({
      baseUrl: platform.baseUrl,
      auth: { type: 'session' },
      fetch: browser.fetch,
    });
    const session = await client.signIn(owner.username, owner.password);
    expect(session.type === 'session' && session.user.username).toBe(owner.username);
    expect(browser.session()).toBeTruthy();
    expect(ok(await client.GET('/api/cloud/users/me/')).username).toBe(owner.username);
    await client.signOut();
    const error = await client.GET('/api/cloud/users/me/').catch((caught) => caught);
    expect(error).toBeInstanceOf(DetailError);
    expect(error.status).toBe(401);
  });
});

describe('typed client: errors', () => {
  it('a data error carries status, field errors and the request id', async () => {
    const error = await books.create({ pages: 'many' as never }).catch((caught) => caught);
    expect(error).toBeInstanceOf(DataError);
    expect(error.status).toBe(400);
    expect(Object.keys(error.fields)).toEqual(expect.arrayContaining(['title', 'pages']));
    expect(error.requestId).toMatch(/\S/);
    expect(error.statusCode).toBe(400);
  });

  it('a data error without fields names the problem (an unknown filter field)', async () => {
    const error = await books.list({ filter: { nope: 1 } as never }).catch((caught) => caught);
    expect(error).toBeInstanceOf(DataError);
    expect(error.status).toBe(400);
    expect(JSON.stringify(error.body)).toContain('nope');
  });

  it('a detail error carries the field errors of a validation failure', async () => {
    const error = await api
      .POST('/api/cloud/organizations/', { body: { name: '' } })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(DetailError);
    expect(error.status).toBe(400);
    expect(Object.keys(error.fields ?? {})).toContain('name');
  });

  it('a roles error carries the code', async () => {
    const error = await api
      .GET('/api/roles/{slug}', { params: { path: { slug: 'no-such-role' } } })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(RolesError);
    expect(error.status).toBe(404);
    expect(error.code).toMatch(/\S/);
  });

  it('a 429 is retried after Retry-After, at most maxRetries times, and can be turned off', async () => {
    const { user } = await createUser(platform);
    const waits: number[] = [];
    const patient = createClient({
      baseUrl: platform.baseUrl,
      auth: { type: 'bearer' },
      retry: { maxRetries: 2, maxWaitSeconds: 3600, sleep: async (ms) => void waits.push(ms) },
    });
    // Five failed sign-ins lock the account: the sixth is a 429 with Retry-After.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const error = await patient.signIn(user.username, 'wrong-password').catch((caught) => caught);
      expect(error.status).toBe(401);
    }
    const locked = await patient.signIn(user.username, 'wrong-password').catch((caught) => caught);
    expect(locked).toBeInstanceOf(DetailError);
    expect(locked.status).toBe(429);
    expect(locked.retryAfter).toBeGreaterThan(0);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThan(0);

    const impatient: number[] = [];
    const noRetry = createClient({ baseUrl: platform.baseUrl, auth: { type: 'bearer' }, retry: false });
    const once = await noRetry.signIn(user.username, 'wrong-password').catch((caught) => caught);
    expect(once.status).toBe(429);
    const bounded = createClient({
      baseUrl: platform.baseUrl,
      auth: { type: 'bearer' },
      retry: { maxWaitSeconds: 0, sleep: async (ms) => void impatient.push(ms) },
    });
    expect((await bounded.signIn(user.username, 'wrong-password').catch((caught) => caught)).status).toBe(
      429,
    );
    expect(impatient).toHaveLength(0);
  });
});

describe('typed client: data helpers', () => {
  const cases: [string, Parameters<typeof filter<Book>>[0] | ReturnType<typeof filter<Book>>, string[]][] = [
    ['equality', { status: 'draft' }, ['Children of Dune', 'The Running Man']],
    ['null equality', { status: null }, ['running wild']],
    ['ne', { status: { ne: 'draft' } }, ['Dune', 'Dune Messiah', 'running wild']],
    ['gt/lte', { pages: { gt: 250, lte: 420 } }, ['Dune', 'Dune Messiah']],
    ['in', { pages: { in: [120, 219] } }, ['The Running Man', 'running wild']],
    ['nin', { status: { nin: ['draft'] } }, ['Dune', 'Dune Messiah', 'running wild']],
    ['ina', { status: { ina: ['DRAFT'] } }, ['Children of Dune', 'The Running Man']],
    ['between', { price: { between: [5, 10] } }, ['Dune', 'Dune Messiah']],
    ['nbetween', { price: { nbetween: [5, 10] } }, ['Children of Dune', 'The Running Man', 'running wild']],
    ['contains', { title: { contains: 'dune' } }, ['Children of Dune', 'Dune', 'Dune Messiah']],
    ['containss', { title: { containss: 'dune' } }, []],
    ['ncontains', { title: { ncontains: 'dune' } }, ['The Running Man', 'running wild']],
    ['startswith', { title: { startswith: 'dune' } }, ['Dune', 'Dune Messiah']],
    ['startswiths', { title: { startswiths: 'run' } }, ['running wild']],
    ['endswith', { title: { endswith: 'MAN' } }, ['The Running Man']],
    ['null', { price: { null: true } }, ['The Running Man']],
    ['nnull', { published_on: { nnull: true } }, ['Children of Dune', 'Dune', 'Dune Messiah']],
    ['dates', { published_on: { gte: '1969-01-01' } }, ['Children of Dune', 'Dune Messiah']],
    ['booleans', { in_stock: true }, ['Dune']],
    ['JSON containment', { metadata: { contains: { tags: ['sf'] } } }, ['Dune']],
    ['JSON has_key', { metadata: { has_key: 'tags' } }, ['Dune']],
    ['JSON path', filter<Book>().wherePath('metadata', ['specs', 'weight'], 'gte', 5), ['Dune']],
    [
      'JSON path, string value stays a string',
      filter<Book>().wherePath('metadata', ['specs', 'weight'], 'eq', '5'),
      ['Children of Dune'],
    ],
    [
      'JSON path, text',
      filter<Book>().wherePath('metadata', ['specs', 'cover'], 'startswith', 'HA'),
      ['Dune Messiah'],
    ],
  ];
  for (const [name, where, expected] of cases) {
    it(`filters: ${name}`, async () => {
      const page = await books.list({ filter: where as never });
      expect(titles(page.data)).toEqual(expected);
      expect(page.total).toBe(expected.length);
    });
  }

  it('sorts by several fields, either spelling', async () => {
    const byPrice = await books.list({ sort: ['-price', 'title'] });
    expect(byPrice.data.map((book) => book.title)).toEqual([
      'The Running Man',
      'Children of Dune',
      'Dune',
      'Dune Messiah',
      'running wild',
    ]);
    const byStatus = await books.list({
      sort: [
        { field: 'status', order: 'asc' },
        { field: 'pages', order: 'desc' },
      ],
    });
    expect(byStatus.data.map((book) => book.pages)).toEqual([444, 219, 412, 256, 120]);
  });

  it('pages in the three forms', async () => {
    const sort = ['pages'] as const;
    const pages = await books.list({ sort, paging: { page: 2, pageSize: 2 } });
    expect(pages).toMatchObject({ total: 5, page: 2, pageSize: 2, hasMore: true });
    expect(pages.data.map((book) => book.pages)).toEqual([256, 412]);
    const offset = await books.list({ sort, paging: { offset: 3, limit: 5 } });
    expect(offset).toMatchObject({ total: 5, offset: 3, limit: 5, hasMore: false });
    expect(offset.data.map((book) => book.pages)).toEqual([412, 444]);
    const window = await books.list({ sort, paging: { start: 1, end: 3 } });
    expect(window.data.map((book) => book.pages)).toEqual([219, 256]);
    expect(window.hasMore).toBe(true);
  });

  it('iterates over every page', async () => {
    const counter = countingFetch();
    const client = createClient({
      baseUrl: platform.baseUrl,
      site: tenant.site.slug,
      auth: { type: 'bearer', ...api.tokens() },
      fetch: counter.fetch,
    });
    const seen: number[] = [];
    for await (const book of client
      .app(tenant.app.slug)
      .table<Book>('books')
      .all({ sort: ['pages'] }, 2)) {
      seen.push(book.pages ?? 0);
    }
    expect(seen).toEqual([120, 219, 256, 412, 444]);
    expect(counter.requests).toHaveLength(3);
  });

  it('creates in chunks, upserts, updates and deletes', async () => {
    await api.app(tenant.app.slug).create({
      name: 'notes',
      schema: {
        fields: [
          { name: 'code', type: 'string', constraints: { unique: true } },
          { name: 'n', type: 'integer' },
        ],
      },
    });
    const counter = countingFetch();
    const client = createClient({
      baseUrl: platform.baseUrl,
      site: tenant.site.slug,
      auth: { type: 'bearer', ...api.tokens() },
      fetch: counter.fetch,
    });
    const notes = client.app(tenant.app.slug).table<{ id: string; code: string; n: number }>('notes');
    const created = await notes.createMany(
      Array.from({ length: 7 }, (_, n) => ({ code: `c${n}`, n })),
      3,
    );
    expect(created.map((note) => note.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(counter.requests.filter((line) => line.startsWith('POST'))).toHaveLength(3);

    const upserted = await notes.upsert(
      [
        { code: 'c1', n: 10 },
        { code: 'c9', n: 9 },
      ],
      ['code'],
    );
    expect(upserted.created).toEqual([false, true]);
    expect(upserted.data.map((note) => note.n)).toEqual([10, 9]);

    const first = created[0];
    if (!first) throw new Error('nothing created');
    expect((await notes.update(first.id, { n: 100 })).n).toBe(100);
    const [a, b] = created.slice(2, 4);
    if (!a || !b) throw new Error('nothing created');
    const many = await notes.updateMany([
      { id: a.id, n: 20 },
      { id: b.id, n: 30 },
    ]);
    expect(many.map((note) => note.n)).toEqual([20, 30]);
    const where = await notes.updateWhere({ n: { gte: 100 } }, { n: 99 });
    expect(where.total).toBe(1);
    await notes.delete(first.id);
    const gone = await notes.get(first.id).catch((caught) => caught);
    expect(gone).toBeInstanceOf(DataError);
    expect(gone.status).toBe(404);
    const deleted = await notes.deleteMany([a.id, b.id]);
    expect(deleted.deleted).toBe(2);
    // 7 created, 1 more by the upsert, 3 deleted.
    expect((await notes.list()).total).toBe(5);
  });

  it('searches with rank and excerpt', async () => {
    const hits = await books.search('runs');
    expect(titles(hits.data)).toEqual(['The Running Man', 'running wild']);
    for (const hit of hits.data) {
      expect(typeof hit.rank).toBe('number');
      expect(hit.excerpt).toMatch(/<b>/);
    }
  });

  it('aggregates, with and without groups', async () => {
    const all = await books.aggregate({ aggregates: ['count(*)', 'sum(pages)', 'max(price)'] });
    expect(all).toEqual({ aggregates: expect.objectContaining({ count: 5, sum_pages: 1451 }) });
    const grouped = await books.aggregate({
      aggregates: ['count(*)'],
      groupBy: ['status'],
      having: { count: { gte: 2 } },
    });
    expect(grouped).toMatchObject({
      total: 2,
      groups: [
        { status: 'draft', count: 2 },
        { status: 'published', count: 2 },
      ],
    });
  });

  it('reads the graph: relatives, trees and graphs', async () => {
    const tables = api.app(tenant.app.slug);
    await tables.create({
      name: 'staff',
      schema: {
        fields: [{ name: 'name', type: 'string' }],
        graph: { enabled: true, types: [{ name: 'manager', inverse: 'reports' }] },
      },
    });
    const staff = tables.table<{ id: string; name: string }>('staff');
    const [ada, cy, dot] = await staff.createMany([{ name: 'Ada' }, { name: 'Cy' }, { name: 'Dot' }]);
    if (!ada || !cy || !dot) throw new Error('no staff');
    const edges = await staff.edges.create([
      { from_id: cy.id, to_id: ada.id, type: 'manager' },
      { from_id: dot.id, to_id: cy.id, type: 'manager' },
    ]);
    expect(edges).toHaveLength(2);
    expect((await staff.edges.list({ type: 'manager' })).total).toBe(2);
    const up = await staff.related(dot.id, 'ancestors');
    expect((up.manager as { name: string }[]).map((record) => record.name)).toEqual(['Cy', 'Ada']);
    const tree = await staff.tree({ id: ada.id });
    expect(JSON.stringify(tree.data)).toContain('Dot');
    const graph = await staff.graph({ id: ada.id, depth: 1 });
    expect(graph.data.nodes.map((node) => node.name).sort()).toEqual(['Ada', 'Cy']);
    expect(graph.data.edges).toHaveLength(1);
  });
});
