import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
let articles: string;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  articles = dataPath(app, 'articles');
  await createTable(tenant.owner, app, 'articles', {
    fields: [
      { name: 'title', type: 'string', constraints: { required: true, maxLength: 100 } },
      { name: 'slug', type: 'string', constraints: { unique: true } },
      { name: 'status', type: 'string', constraints: { enum: ['draft', 'published'] }, default: 'draft' },
      { name: 'views', type: 'integer', constraints: { minimum: 0 } },
      { name: 'rating', type: 'number' },
      { name: 'featured', type: 'boolean' },
      { name: 'published_on', type: 'date' },
      { name: 'starts_at', type: 'time' },
      { name: 'happens_at', type: 'datetime' },
      { name: 'meta', type: 'object' },
      { name: 'tags', type: 'array' },
      { name: 'created_at', type: 'datetime' },
      { name: 'updated_at', type: 'datetime' },
    ],
    uniqueKeys: [['title', 'status']],
  });
});
afterAll(async () => {
  await platform.stop();
});

async function count(path = articles): Promise<number> {
  return (await tenant.owner.get(path)).body.total;
}

describe('POST /api/apps/{app_slug}/datatables/{name}/data/', () => {
  it('creates one record: 201 with status, message and the record', async () => {
    const response = await tenant.owner.post(articles, {
      title: 'Hello',
      views: 3,
      rating: 4.5,
      featured: true,
      published_on: '2024-02-29',
      starts_at: '09:30:00',
      happens_at: '2024-03-01T10:00:00+02:00',
      meta: { author: { name: 'Ann' } },
      tags: ['a', 1, true],
    });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe('success');
    expect(typeof response.body.message).toBe('string');
    const record = response.body.data;
    expect(record.id).toMatch(uuid);
    expect(record).toMatchObject({
      title: 'Hello',
      slug: null,
      status: 'draft',
      views: 3,
      rating: 4.5,
      featured: true,
      published_on: '2024-02-29',
      starts_at: '09:30:00',
      happens_at: '2024-03-01T08:00:00.000Z',
      meta: { author: { name: 'Ann' } },
      tags: ['a', 1, true],
    });
    // RFC 3339 in UTC: milliseconds, or microseconds when the stored value has them (docs/security.md).
    expect(record.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.(?:\d{3}|\d{6})Z$/);
    expect(new Date(record.created_at).toISOString()).toBe(`${record.created_at.slice(0, 23)}Z`);
    expect(record.updated_at).toBe(record.created_at);
    expect(Object.keys(record)).toEqual([
      'id',
      'title',
      'slug',
      'status',
      'views',
      'rating',
      'featured',
      'published_on',
      'starts_at',
      'happens_at',
      'meta',
      'tags',
      'created_at',
      'updated_at',
    ]);
  });

  it('keeps a client-chosen uuid key', async () => {
    const id = '6f1c2b9e-8d4a-4e5b-9c3d-2a1b0c9d8e7f';
    const response = await tenant.owner.post(articles, { id, title: 'Chosen' });
    expect(response.status).toBe(201);
    expect(response.body.data.id).toBe(id);
  });

  it('ignores the read-only timestamps of a record sent back', async () => {
    const response = await tenant.owner.post(articles, {
      title: 'Sent back',
      created_at: '2000-01-01T00:00:00Z',
      updated_at: '2000-01-01T00:00:00Z',
    });
    expect(response.status).toBe(201);
    expect(response.body.data.created_at).not.toBe('2000-01-01T00:00:00.000Z');
  });

  it('creates several records from an array: 201 with data in order', async () => {
    const response = await tenant.owner.post(articles, [
      { title: 'Bulk 1' },
      { title: 'Bulk 2', views: 2 },
      { title: 'Bulk 3' },
    ]);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['data']);
    expect(response.body.data.map((record: { title: string }) => record.title)).toEqual([
      'Bulk 1',
      'Bulk 2',
      'Bulk 3',
    ]);
    expect(response.body.data[1].views).toBe(2);
  });

  it('returns 400 for a bulk insert with one invalid record and stores none of them', async () => {
    const before = await count();
    const response = await tenant.owner.post(articles, [
      { title: 'Fine' },
      { views: -1 },
      { title: 'Also fine' },
    ]);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: {
        '1.title': ['This field is required.'],
        '1.views': ['Ensure this value is greater than or equal to 0.'],
      },
    });
    expect(await count()).toBe(before);
  });

  it('returns 409 for a bulk insert that breaks a unique constraint and stores none of it', async () => {
    const before = await count();
    const response = await tenant.owner.post(articles, [
      { title: 'First', slug: 'same' },
      { title: 'Second', slug: 'other' },
      { title: 'Third', slug: 'same' },
    ]);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: 'Unique constraint violation',
      detail: 'A record with this slug already exists.',
      field: 'slug',
    });
    expect(await count()).toBe(before);
    expect((await tenant.owner.get(`${articles}?slug=other`)).body.total).toBe(0);
  });

  it('inserts records that name different fields, in order', async () => {
    const response = await tenant.owner.post(articles, [
      { title: 'Mixed 1' },
      { title: 'Mixed 2', views: 9 },
      { title: 'Mixed 3' },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.data.map((record: { views: number | null }) => record.views)).toEqual([
      null,
      9,
      null,
    ]);
  });

  it('returns 400 for an empty array', async () => {
    const response = await tenant.owner.post(articles, []);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ non_field_errors: ['Send at least one record.'] });
  });

  it('returns 400 for an array item that is not an object', async () => {
    const response = await tenant.owner.post(articles, [{ title: 'ok' }, 'nope']);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ '1': ['Must be a JSON object.'] });
  });

  it('works without the trailing slash', async () => {
    const response = await tenant.owner.post(articles.slice(0, -1), { title: 'No slash' });
    expect(response.status).toBe(201);
  });
});

describe('POST /api/apps/{app_slug}/datatables/{name}/data/upsert/', () => {
  it('creates a record when none has the unique values: 201, created true', async () => {
    const response = await tenant.owner.post(`${articles}upsert/?unique_fields=slug`, {
      title: 'Upserted',
      slug: 'up',
    });
    expect(response.status).toBe(201);
    expect(response.body.created).toBe(true);
    expect(response.body.data).toMatchObject({ title: 'Upserted', slug: 'up', status: 'draft' });
  });

  it('updates the record with the same unique values: 200, created false', async () => {
    const first = await tenant.owner.get(`${articles}?slug=up`);
    const original = first.body.data[0];
    const response = await tenant.owner.post(`${articles}upsert/?unique_fields=slug`, {
      title: 'Upserted again',
      slug: 'up',
      views: 7,
    });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['created', 'data']);
    expect(response.body.created).toBe(false);
    expect(response.body.data).toMatchObject({ id: original.id, title: 'Upserted again', views: 7 });
    expect(response.body.data.created_at).toBe(original.created_at);
    expect(response.body.data.updated_at > original.updated_at).toBe(true);
  });

  it('upserts on several fields that form a unique key', async () => {
    const path = `${articles}upsert/?unique_fields=title,status`;
    const created = await tenant.owner.post(path, { title: 'Pair', status: 'published', views: 1 });
    const updated = await tenant.owner.post(path, { title: 'Pair', status: 'published', views: 2 });
    expect(created.status).toBe(201);
    expect(updated.status).toBe(200);
    expect(updated.body.data.id).toBe(created.body.data.id);
    expect(updated.body.data.views).toBe(2);
  });

  it('upserts an array in one transaction: created per record', async () => {
    const response = await tenant.owner.post(`${articles}upsert/?unique_fields=slug`, [
      { title: 'Again', slug: 'up' },
      { title: 'New one', slug: 'fresh' },
    ]);
    expect(response.status).toBe(201);
    expect(response.body.created).toEqual([false, true]);
    expect(response.body.data.map((record: { slug: string }) => record.slug)).toEqual(['up', 'fresh']);
  });

  it('returns 422 for fields that form no unique constraint', async () => {
    const response = await tenant.owner.post(`${articles}upsert/?unique_fields=title`, { title: 'x' });
    expect(response.status).toBe(422);
    expect(response.body.error).toBe('Cannot upsert');
    expect(response.body.detail).toMatch(/No unique constraint of table "articles" is exactly \(title\)/);
  });

  it('returns 400 without unique_fields', async () => {
    const response = await tenant.owner.post(`${articles}upsert/`, { title: 'x' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { unique_fields: ['This field is required.'] },
    });
  });

  it('returns 400 when the body lacks a unique field value', async () => {
    const response = await tenant.owner.post(`${articles}upsert/?unique_fields=slug`, { title: 'No slug' });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({
      slug: ['An upsert needs a value for each of its unique fields.'],
    });
  });

  it('returns 400 for an unknown unique field', async () => {
    const response = await tenant.owner.post(`${articles}upsert/?unique_fields=nope`, { title: 'x' });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ unique_fields: ['Unknown field "nope".'] });
  });
});

describe('GET /api/apps/{app_slug}/datatables/{name}/data/{id}/', () => {
  it('returns the record in data', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [{ title: 'Read me' }]);
    const response = await tenant.owner.get(`${articles}${record.id}/`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: record });
  });

  it('works without the trailing slash', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [{ title: 'Slashless' }]);
    const response = await tenant.owner.get(`${articles}${record.id}`);
    expect(response.status).toBe(200);
  });

  it('returns 404 with Record not found for a missing record', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const response = await tenant.owner.get(`${articles}${id}/`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Record not found', detail: `No record with id "${id}".` });
  });

  it('returns 404 for an id that cannot be a key', async () => {
    const response = await tenant.owner.get(`${articles}not-a-uuid/`);
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Record not found');
  });
});

describe('GET /api/apps/{app_slug}/datatables/{name}/data/', () => {
  let path: string;

  beforeAll(async () => {
    await createTable(tenant.owner, app, 'items', {
      fields: [
        { name: 'name', type: 'string' },
        { name: 'color', type: 'string' },
        { name: 'size', type: 'integer' },
        { name: 'active', type: 'boolean' },
        { name: 'created_at', type: 'datetime' },
      ],
    });
    path = dataPath(app, 'items');
    const colors = ['red', 'blue', 'red', 'green', 'red', 'blue', 'red'];
    for (const [index, color] of colors.entries())
      await insert(tenant.owner, app, 'items', {
        name: `item ${index}`,
        color,
        size: index % 3,
        active: index % 2 === 0,
      });
  });

  it('returns data, total, page and page_size', async () => {
    const response = await tenant.owner.get(path);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'page', 'page_size', 'total']);
    expect(response.body).toMatchObject({ total: 7, page: 1, page_size: 100 });
    expect(response.body.data.map((item: { name: string }) => item.name)).toEqual([
      'item 0',
      'item 1',
      'item 2',
      'item 3',
      'item 4',
      'item 5',
      'item 6',
    ]);
  });

  it('filters by equality on several fields, converting each value to the field type', async () => {
    const response = await tenant.owner.get(`${path}?color=red&size=0&active=true`);
    expect(response.body.total).toBe(2);
    expect(response.body.data.map((item: { name: string }) => item.name)).toEqual(['item 0', 'item 6']);
  });

  it('pages with page and page_size, total counting every match', async () => {
    const response = await tenant.owner.get(`${path}?color=red&page=2&page_size=3`);
    expect(response.body).toMatchObject({ total: 4, page: 2, page_size: 3 });
    expect(response.body.data.map((item: { name: string }) => item.name)).toEqual(['item 6']);
  });

  it('returns an empty page beyond the last one', async () => {
    const response = await tenant.owner.get(`${path}?page=9&page_size=3`);
    expect(response.body).toMatchObject({ data: [], total: 7 });
  });

  it('returns 400 for a filter on an unknown field', async () => {
    const response = await tenant.owner.get(`${path}?colour=red`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      details: { colour: ['Unknown field "colour" of table "items".'] },
    });
  });

  it('returns 400 for a filter value of the wrong type', async () => {
    const response = await tenant.owner.get(`${path}?size=big`);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ size: ['Must be an integer.'] });
  });

  it('returns 400 for a page size above the maximum', async () => {
    const response = await tenant.owner.get(`${path}?page_size=1001`);
    expect(response.status).toBe(400);
    expect(response.body.details.page_size).toBeDefined();
  });

  it('returns 404 for an unknown table', async () => {
    const response = await tenant.owner.get(dataPath(app, 'nothing'));
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Table not found');
  });
});

describe('PATCH /api/apps/{app_slug}/datatables/{name}/data/{id}/', () => {
  it('changes the given fields only and returns the record', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [
      { title: 'Patch me', views: 1, tags: ['x'] },
    ]);
    const response = await tenant.owner.patch(`${articles}${record.id}/`, { views: 2, tags: [['nested']] });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({
      id: record.id,
      title: 'Patch me',
      views: 2,
      tags: [['nested']],
    });
    expect(response.body.data.updated_at > record.updated_at).toBe(true);
  });

  it('sets an optional field to null', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [{ title: 'Null me', views: 5 }]);
    const response = await tenant.owner.patch(`${articles}${record.id}`, { views: null });
    expect(response.body.data.views).toBeNull();
  });

  it('returns 400 for a required field set to null', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [{ title: 'Keep me' }]);
    const response = await tenant.owner.patch(`${articles}${record.id}/`, { title: null });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ title: ['Must be of type string.'] });
  });

  it('returns 400 for a change of the key', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [{ title: 'Keyed' }]);
    const response = await tenant.owner.patch(`${articles}${record.id}/`, {
      id: '00000000-0000-4000-8000-000000000001',
    });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ id: ['The primary key of a record cannot be changed.'] });
  });

  it('returns 404 for a missing record', async () => {
    const response = await tenant.owner.patch(`${articles}00000000-0000-4000-8000-000000000002/`, {
      views: 1,
    });
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Record not found');
  });
});

describe('PATCH /api/apps/{app_slug}/datatables/{name}/data/', () => {
  it('changes several records, each named by its id, and returns them in order', async () => {
    const [a, b] = await insert(tenant.owner, app, 'articles', [{ title: 'Many A' }, { title: 'Many B' }]);
    const response = await tenant.owner.patch(articles, [
      { id: b.id, views: 20 },
      { id: a.id, views: 10, status: 'published' },
    ]);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data']);
    expect(
      response.body.data.map((record: { id: string; views: number }) => [record.id, record.views]),
    ).toEqual([
      [b.id, 20],
      [a.id, 10],
    ]);
  });

  it('returns 400 for an object without its id and changes nothing', async () => {
    const [a] = await insert(tenant.owner, app, 'articles', [{ title: 'Unchanged', views: 1 }]);
    const response = await tenant.owner.patch(articles, [{ id: a.id, views: 2 }, { views: 3 }]);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ '1.id': ['This field is required.'] });
    expect((await tenant.owner.get(`${articles}${a.id}/`)).body.data.views).toBe(1);
  });

  it('returns 404 for an unknown id and changes none of the records', async () => {
    const [a] = await insert(tenant.owner, app, 'articles', [{ title: 'Untouched', views: 1 }]);
    const missing = '00000000-0000-4000-8000-000000000003';
    const response = await tenant.owner.patch(articles, [
      { id: a.id, views: 2 },
      { id: missing, views: 3 },
    ]);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Record not found', detail: `No record with id "${missing}".` });
    expect((await tenant.owner.get(`${articles}${a.id}/`)).body.data.views).toBe(1);
  });

  it('changes every record the query filters match and returns them with total', async () => {
    await createTable(tenant.owner, app, 'tasks', {
      fields: [
        { name: 'name', type: 'string' },
        { name: 'state', type: 'string', constraints: { enum: ['open', 'done'] } },
        { name: 'owner', type: 'string' },
      ],
    });
    await insert(tenant.owner, app, 'tasks', [
      { name: 'a', state: 'open', owner: 'ann' },
      { name: 'b', state: 'open', owner: 'bob' },
      { name: 'c', state: 'open', owner: 'ann' },
      { name: 'd', state: 'done', owner: 'ann' },
    ]);
    const response = await tenant.owner.patch(`${dataPath(app, 'tasks')}?state=open&owner=ann`, {
      state: 'done',
    });
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(2);
    expect(response.body.data.map((task: { name: string }) => task.name).sort()).toEqual(['a', 'c']);
    expect(response.body.data.every((task: { state: string }) => task.state === 'done')).toBe(true);
    const open = await tenant.owner.get(`${dataPath(app, 'tasks')}?state=open`);
    expect(open.body.data.map((task: { name: string }) => task.name)).toEqual(['b']);
  });

  it('returns total 0 when the filters match nothing', async () => {
    const response = await tenant.owner.patch(`${dataPath(app, 'tasks')}?owner=nobody`, { state: 'done' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], total: 0 });
  });

  it('returns 400 for a change without filters', async () => {
    const response = await tenant.owner.patch(dataPath(app, 'tasks'), { state: 'done' });
    expect(response.status).toBe(400);
    expect(response.body.details.non_field_errors[0]).toMatch(/Name at least one filter/);
  });

  it('returns 400 for a change that breaks the schema', async () => {
    const response = await tenant.owner.patch(`${dataPath(app, 'tasks')}?owner=ann`, { state: 'lost' });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ state: ['Must be one of: open, done, null.'] });
  });
});

describe('DELETE /api/apps/{app_slug}/datatables/{name}/data/{id}/', () => {
  it('returns 204 and removes the record', async () => {
    const [record] = await insert(tenant.owner, app, 'articles', [{ title: 'Delete me' }]);
    const response = await tenant.owner.delete(`${articles}${record.id}/`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await tenant.owner.get(`${articles}${record.id}/`)).status).toBe(404);
  });

  it('returns 404 for a missing record', async () => {
    const response = await tenant.owner.delete(`${articles}00000000-0000-4000-8000-000000000004`);
    expect(response.status).toBe(404);
    expect(response.body.error).toBe('Record not found');
  });
});

describe('DELETE /api/apps/{app_slug}/datatables/{name}/data/', () => {
  it('deletes the records of ids: 200 with deleted and ids', async () => {
    const [a, b] = await insert(tenant.owner, app, 'articles', [{ title: 'Ids A' }, { title: 'Ids B' }]);
    const missing = '00000000-0000-4000-8000-000000000005';
    const response = await tenant.owner.delete(`${articles}?ids=${a.id},${b.id},${missing}`);
    expect(response.status).toBe(200);
    expect(response.body.deleted).toBe(2);
    expect([...response.body.ids].sort()).toEqual([a.id, b.id].sort());
  });

  it('returns 400 for an id that cannot be a key', async () => {
    const response = await tenant.owner.delete(`${articles}?ids=abc`);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ ids: ['"abc" is not a valid key.'] });
  });

  it('deletes the records a JSON filter matches: 200 with deleted', async () => {
    await insert(tenant.owner, app, 'tasks', [
      { name: 'x', state: 'open', owner: 'zed' },
      { name: 'y', state: 'open', owner: 'zed' },
      { name: 'z', state: 'done', owner: 'zed' },
    ]);
    const filter = encodeURIComponent(JSON.stringify({ owner: 'zed', state: 'open' }));
    const response = await tenant.owner.delete(`${dataPath(app, 'tasks')}?filter=${filter}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ deleted: 2 });
    expect((await tenant.owner.get(`${dataPath(app, 'tasks')}?owner=zed`)).body.total).toBe(1);
  });

  it('returns 400 for a filter that is not JSON', async () => {
    const response = await tenant.owner.delete(`${dataPath(app, 'tasks')}?filter=owner`);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ filter: ['Must be a JSON object of field conditions.'] });
  });

  it('returns 400 for a filter on an unknown field', async () => {
    const filter = encodeURIComponent(JSON.stringify({ color: 'red' }));
    const response = await tenant.owner.delete(`${dataPath(app, 'tasks')}?filter=${filter}`);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ 'filter.color': ['Unknown field "color" of table "tasks".'] });
  });

  it('returns 400 for an empty filter rather than deleting everything', async () => {
    const response = await tenant.owner.delete(`${dataPath(app, 'tasks')}?filter=%7B%7D`);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual({ filter: ['Name at least one field condition.'] });
  });

  it('returns 400 without ids or filter', async () => {
    const response = await tenant.owner.delete(dataPath(app, 'tasks'));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Validation failed');
  });
});
