import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** Full-text search (`search`) and `populate` of foreign keys (docs/data-tables.md, Query language). */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
let posts: string;
let books: string;
const authors: Record<string, string> = {};

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  posts = dataPath(app, 'posts');
  books = dataPath(app, 'books');
  await createTable(tenant.owner, app, 'posts', {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'body', type: 'string' },
      {
        name: 'search_vector',
        type: 'tsvector',
        'x-search': { fields: ['title', 'body'], language: 'english' },
      },
    ],
  });
  await insert(tenant.owner, app, 'posts', [
    { title: 'Running shoes review', body: 'The best shoes for running marathons' },
    { title: 'Cooking pasta', body: 'Boil water and cook the pasta al dente' },
    { title: 'Trail running', body: 'Running on trails is different from road running' },
    { title: 'The shoe store', body: 'We sell shoes and socks' },
  ]);
  await createTable(tenant.owner, app, 'authors', { fields: [{ name: 'name', type: 'string' }] });
  await createTable(tenant.owner, app, 'books', {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'author_id', type: 'string', format: 'uuid' },
      { name: 'editor', type: 'string', format: 'uuid' },
    ],
    foreignKeys: [
      { fields: 'author_id', reference: { resource: 'authors', fields: 'id' } },
      { fields: 'editor', reference: { resource: 'authors', fields: 'id' } },
    ],
  });
  for (const author of await insert(tenant.owner, app, 'authors', [{ name: 'Le Guin' }, { name: 'Herbert' }]))
    authors[author.name] = author.id;
  await insert(tenant.owner, app, 'books', [
    { title: 'Dune', author_id: authors.Herbert, editor: authors['Le Guin'] },
    { title: 'Earthsea', author_id: authors['Le Guin'] },
    { title: 'Anonymous', author_id: null },
  ]);
});
afterAll(async () => {
  await platform.stop();
});

async function titles(query: string): Promise<string[]> {
  const response = await tenant.owner.get(`${posts}?${query}`);
  if (response.status !== 200) throw new Error(`${query}: ${response.status} ${response.text}`);
  return response.body.data.map((record: { title: string }) => record.title);
}

describe('search', () => {
  it('matches stemmed words, ordered by rank, with rank and excerpt', async () => {
    const response = await tenant.owner.get(`${posts}?search=runs`);
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(2);
    const [first, second] = response.body.data;
    expect(first.title).toBe('Trail running');
    expect(second.title).toBe('Running shoes review');
    expect(first.rank).toBeGreaterThan(second.rank);
    expect(first.excerpt).toMatch(/<b>Running<\/b>/i);
    expect(first).not.toHaveProperty('search_vector');
  });

  it('needs every word of a multi-word search', async () => {
    expect(await titles('search=running%20shoes')).toEqual(['Running shoes review']);
  });

  it('matches quoted phrases, excludes -terms and takes OR', async () => {
    expect(await titles(`search=${encodeURIComponent('"shoes running"')}`)).toEqual([]);
    expect(await titles(`search=${encodeURIComponent('"running shoes"')}`)).toEqual(['Running shoes review']);
    expect(await titles(`search=${encodeURIComponent('shoes -running')}`)).toEqual(['The shoe store']);
    expect((await titles(`search=${encodeURIComponent('pasta OR trail')}`)).sort()).toEqual([
      'Cooking pasta',
      'Trail running',
    ]);
  });

  it('drops stop words: a search of only stop words matches nothing', async () => {
    expect(await titles('search=the')).toEqual([]);
  });

  it('keeps a requested sort instead of rank, and combines with filters', async () => {
    expect(await titles('search=running&_sort=title')).toEqual(['Running shoes review', 'Trail running']);
    expect(await titles('search=running&title_startswith=trail')).toEqual(['Trail running']);
  });

  it('400 on a table without a search vector', async () => {
    const response = await tenant.owner.get(`${books}?search=dune`);
    expect(response.status).toBe(400);
    expect(response.body.details.search[0]).toMatch(/search_vector/);
  });
});

describe('populate', () => {
  it('embeds the referenced record of each named relationship on a list', async () => {
    const response = await tenant.owner.get(`${books}?populate=author&ordering=title`);
    expect(response.status).toBe(200);
    const [anonymous, dune, earthsea] = response.body.data;
    expect(anonymous.author).toBeNull();
    expect(dune.author).toMatchObject({ id: authors.Herbert, name: 'Herbert' });
    expect(dune.author_id).toBe(authors.Herbert);
    expect(earthsea.author).toMatchObject({ name: 'Le Guin' });
    expect(dune).not.toHaveProperty('editor_data');
  });

  it('embeds every relationship with *, and on a single record', async () => {
    const list = await tenant.owner.get(`${books}?populate=*&title=Dune`);
    expect(list.body.data[0].author.name).toBe('Herbert');
    expect(list.body.data[0].editor.name).toBe('Le Guin');
    const id = list.body.data[0].id;
    const one = await tenant.owner.get(`${books}${id}/?populate=author_id`);
    expect(one.status).toBe(200);
    expect(one.body.data.author.name).toBe('Herbert');
  });

  it('400 naming an unknown relationship', async () => {
    const response = await tenant.owner.get(`${books}?populate=publisher`);
    expect(response.status).toBe(400);
    expect(response.body.details.populate[0]).toMatch(/publisher/);
  });
});
