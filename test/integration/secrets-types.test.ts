import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;

const apiKeySchema = {
  type: 'object',
  properties: { api_key: { type: 'string', minLength: 8 } },
  required: ['api_key'],
};

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

const newType = (fields: Record<string, unknown> = {}) =>
  owner.post('/api/secret-types/', {
    name: 'Stripe_Keys',
    description: 'Payment provider keys',
    sensitivity_level: 'private',
    schema: apiKeySchema,
    ...fields,
  });

describe('POST /api/secret-types/', () => {
  it('returns 201 with {status, message, data: {type, name, slug, sensitivity_level}}; the slug turns _ into -', async () => {
    const response = await newType();
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Secret type created successfully',
      data: { type: 'custom', name: 'Stripe_Keys', slug: 'stripe-keys', sensitivity_level: 'private' },
    });
  });

  it('answers a duplicate name with 400 {message, field: "name"}', async () => {
    await newType();
    const response = await newType({ name: 'stripe_keys' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: 'A secret type named "stripe_keys" already exists.',
      field: 'name',
    });
  });

  it('refuses a name outside ^[a-zA-Z0-9_-]+$ with Schema validation failed naming the field', async () => {
    const response = await newType({ name: 'has space' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Schema validation failed');
    expect(Object.keys(response.body.detail)).toEqual(['name']);
  });

  it('lists a missing required field in the detail', async () => {
    const response = await owner.post('/api/secret-types/', { name: 'NoLevel' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Schema validation failed',
      detail: { sensitivity_level: ['This field is required.'] },
    });
  });

  it('refuses a schema ajv cannot compile, naming `schema`', async () => {
    const response = await newType({ schema: { type: 'no-such-type' } });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.detail)).toEqual(['schema']);
  });

  it('lets only superusers create a system type (403 Permission denied for the site owner)', async () => {
    const refused = await newType({ type: 'system' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Permission denied');
    const allowed = await tenant.admin.forSite(tenant.site.slug).post('/api/secret-types/', {
      type: 'system',
      name: 'Platform_Keys',
      sensitivity_level: 'sensitive',
    });
    expect(allowed.status).toBe(201);
    expect(allowed.body.data.type).toBe('system');
  });

  it('answers 401 Authentication required without a token', async () => {
    const response = await platform.api.forSite(tenant.site.slug).post('/api/secret-types/', {
      name: 'x',
      sensitivity_level: 'public',
    });
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('Authentication required');
    expect(typeof response.body.detail).toBe('string');
  });
});

describe('GET /api/secret-types/', () => {
  beforeEach(async () => {
    await newType();
    await newType({ name: 'Db_Password', description: 'database', sensitivity_level: 'sensitive' });
    await newType({ name: 'Feature_Flags', description: 'toggles', sensitivity_level: 'public' });
  });

  it('returns {items, count, next, previous} ordered by name', async () => {
    const response = await owner.get('/api/secret-types/');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['count', 'items', 'next', 'previous']);
    expect(response.body.count).toBe(3);
    expect(response.body.items.map((type: { name: string }) => type.name)).toEqual([
      'Db_Password',
      'Feature_Flags',
      'Stripe_Keys',
    ]);
    expect(response.body.items[0]).toMatchObject({
      type: 'custom',
      slug: 'db-password',
      description: 'database',
      sensitivity_level: 'sensitive',
    });
  });

  it('searches name and description, filters type and sensitivity_level, orders descending', async () => {
    const search = await owner.get('/api/secret-types/?search=toggle');
    expect(search.body.items.map((type: { slug: string }) => type.slug)).toEqual(['feature-flags']);
    const level = await owner.get('/api/secret-types/?sensitivity_level=private');
    expect(level.body.items.map((type: { slug: string }) => type.slug)).toEqual(['stripe-keys']);
    const custom = await owner.get('/api/secret-types/?type=system');
    expect(custom.body.count).toBe(0);
    const ordered = await owner.get('/api/secret-types/?ordering=-name');
    expect(ordered.body.items[0].name).toBe('Stripe_Keys');
  });

  it('pages with page_size (max 100) and links next and previous', async () => {
    const first = await owner.get('/api/secret-types/?page_size=2');
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next).toMatch(/page=2/);
    expect(first.body.previous).toBeNull();
    const second = await owner.get('/api/secret-types/?page_size=2&page=2');
    expect(second.body.items).toHaveLength(1);
    expect(second.body.previous).toMatch(/page=1/);
    expect((await owner.get('/api/secret-types/?page_size=101')).status).toBe(400);
  });

  it('answers 403 Permission denied to a user without a site permission', async () => {
    const { user, api } = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, user.id, ['access_site']);
    const response = await api.get('/api/secret-types/');
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'Permission denied', detail: expect.any(String) });
  });
});

describe('GET, PUT and DELETE /api/secret-types/{slug}/', () => {
  beforeEach(async () => {
    await newType();
  });

  it('GET returns the type with type, name, slug, description, sensitivity_level', async () => {
    const response = await owner.get('/api/secret-types/stripe-keys/');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      type: 'custom',
      name: 'Stripe_Keys',
      slug: 'stripe-keys',
      description: 'Payment provider keys',
      sensitivity_level: 'private',
      schema: apiKeySchema,
    });
    expect((await owner.get('/api/secret-types/nope/')).status).toBe(404);
  });

  it('PUT changes name, description and schema; the slug stays', async () => {
    const response = await owner.put('/api/secret-types/stripe-keys/', {
      name: 'Payment_Keys',
      description: 'changed',
      schema: { type: 'object' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'Payment_Keys',
      slug: 'stripe-keys',
      description: 'changed',
    });
    expect((await owner.get('/api/secret-types/stripe-keys/')).body.name).toBe('Payment_Keys');
  });

  it('PUT refuses a name another type holds with {message, field: "name"}', async () => {
    await newType({ name: 'Other' });
    const response = await owner.put('/api/secret-types/stripe-keys/', { name: 'OTHER' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'A secret type named "OTHER" already exists.', field: 'name' });
  });

  it.each([
    ['sensitivity_level', 'private', 'public'],
    ['type', 'custom', 'system'],
  ])('PUT refuses a change of %s with the classification error', async (field, current, attempted) => {
    const response = await owner.put('/api/secret-types/stripe-keys/', { [field]: attempted });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Type classification cannot be changed after creation.',
      detail: { field, current, attempted },
    });
  });

  it('DELETE removes an unused custom type with {message, detail}', async () => {
    const response = await owner.delete('/api/secret-types/stripe-keys/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Secret type deleted successfully',
      detail: 'Secret type "Stripe_Keys" was deleted.',
    });
    expect((await owner.get('/api/secret-types/stripe-keys/')).status).toBe(404);
  });

  it('DELETE refuses a type in use, naming how many secrets use it', async () => {
    for (const key of ['one', 'two'])
      await owner.post('/api/secrets/', {
        secret_type: 'stripe-keys',
        key,
        value: { api_key: 'sk_live_123' },
      });
    const response = await owner.delete('/api/secret-types/stripe-keys/');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Secret type "stripe-keys" is used by 2 secrets and cannot be deleted.',
    });
    await owner.delete('/api/secrets/one/');
    await owner.delete('/api/secrets/two/');
    expect((await owner.delete('/api/secret-types/stripe-keys/')).status).toBe(200);
  });

  it('DELETE refuses a system type, which can still have name, description and schema updated', async () => {
    const admin = tenant.admin.forSite(tenant.site.slug);
    await admin.post('/api/secret-types/', { type: 'system', name: 'Platform', sensitivity_level: 'public' });
    const refused = await admin.delete('/api/secret-types/platform/');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'System secret types cannot be deleted.' });
    const renamed = await owner.put('/api/secret-types/platform/', { name: 'Platform2', description: 'd' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ type: 'system', name: 'Platform2' });
  });
});
