import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});
beforeEach(async () => {
  tenant = await createTenant(platform);
  owner = tenant.owner;
});

describe('POST and GET /api/tags/', () => {
  it('creates a tag (201) with the default colour #6B7280 and lists every tag', async () => {
    const created = await owner.post('/api/tags/', { name: 'Prod_EU', description: 'production' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'Prod_EU',
      slug: 'prod-eu',
      description: 'production',
      color: '#6B7280',
    });
    await owner.post('/api/tags/', { name: 'billing', color: '#ff0000' });
    const list = await owner.get('/api/tags/');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { name: 'billing', slug: 'billing', description: '', color: '#ff0000' },
      { name: 'Prod_EU', slug: 'prod-eu', description: 'production', color: '#6B7280' },
    ]);
  });

  it('refuses a bad name or colour naming the field, and a duplicate name', async () => {
    const badName = await owner.post('/api/tags/', { name: 'a b' });
    expect(badName.body).toMatchObject({ error: 'Schema validation failed' });
    expect(Object.keys(badName.body.detail)).toEqual(['name']);
    const badColor = await owner.post('/api/tags/', { name: 'x', color: 'red' });
    expect(Object.keys(badColor.body.detail)).toEqual(['color']);
    await owner.post('/api/tags/', { name: 'dup' });
    const dup = await owner.post('/api/tags/', { name: 'DUP' });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: 'A tag named "DUP" already exists.', field: 'name' });
  });
});

describe('GET, PUT, PATCH and DELETE /api/tags/{slug}/', () => {
  beforeEach(async () => {
    await owner.post('/api/tags/', { name: 'prod', description: 'production', color: '#000000' });
    await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
  });

  it('GET returns the tag; 404 Tag not found for an unknown slug', async () => {
    expect((await owner.get('/api/tags/prod/')).body).toEqual({
      name: 'prod',
      slug: 'prod',
      description: 'production',
      color: '#000000',
    });
    const missing = await owner.get('/api/tags/nope/');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Tag not found');
  });

  it('PUT replaces the tag (what is left out returns to its default); the new name reaches its secrets', async () => {
    await owner.post('/api/secrets/', { secret_type: 'token', key: 'k', value: { a: 1 }, tags: ['prod'] });
    const response = await owner.put('/api/tags/prod/', { name: 'production' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ name: 'production', slug: 'prod', description: '', color: '#6B7280' });
    expect((await owner.get('/api/secrets/k/')).body.tags).toEqual(['production']);
  });

  it('PATCH changes any subset', async () => {
    const response = await owner.patch('/api/tags/prod/', { color: '#123ABC' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      name: 'prod',
      slug: 'prod',
      description: 'production',
      color: '#123ABC',
    });
    expect((await owner.patch('/api/tags/prod/', { color: '#12' })).status).toBe(400);
  });

  it('DELETE returns {message, detail} and takes the tag off every secret, leaving them otherwise unchanged', async () => {
    await owner.post('/api/tags/', { name: 'keep' });
    await owner.post('/api/secrets/', {
      secret_type: 'token',
      key: 'k',
      value: { a: 1 },
      tags: ['prod', 'keep'],
    });
    const before = await owner.get('/api/secrets/k/history/');
    const response = await owner.delete('/api/tags/prod/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Tag deleted successfully',
      detail: 'Tag "prod" was deleted and removed from its secrets.',
    });
    expect((await owner.get('/api/secrets/k/')).body).toEqual({
      key: 'k',
      tags: ['keep'],
      secret_type: 'Token',
      value: { a: 1 },
    });
    expect((await owner.get('/api/secrets/k/history/')).body.total_count).toBe(before.body.total_count);
    expect((await owner.get('/api/tags/prod/')).status).toBe(404);
    expect((await owner.post('/api/tags/', { name: 'prod' })).status).toBe(201);
  });
});
