import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

/** Every log line of the platform, as text: values must never show up in them. */
const lines: string[] = [];
const log: Logger = {
  debug: (message, fields) => lines.push(JSON.stringify({ message, fields })),
  info: (message, fields) => lines.push(JSON.stringify({ message, fields })),
  warn: (message, fields) => lines.push(JSON.stringify({ message, fields })),
  error: (message, fields) => lines.push(JSON.stringify({ message, fields })),
  child: () => log,
};

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;
let anonymous: ApiClient;

const schema = { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] };

beforeAll(async () => {
  platform = await startTestPlatform({}, { log });
});
afterAll(async () => {
  await platform.stop();
});
beforeEach(async () => {
  tenant = await createTenant(platform);
  owner = tenant.owner;
  anonymous = platform.api.forSite(tenant.site.slug);
  for (const [name, sensitivity_level] of [
    ['Api_Token', 'private'],
    ['Public_Config', 'public'],
    ['Root_Key', 'sensitive'],
  ])
    await owner.post('/api/secret-types/', { name, sensitivity_level, schema });
  await owner.post('/api/tags/', { name: 'prod' });
  await owner.post('/api/tags/', { name: 'billing_team' });
});

const create = (fields: Record<string, unknown>) =>
  owner.post('/api/secrets/', {
    secret_type: 'api-token',
    key: 'stripe',
    value: { token: 'site' },
    ...fields,
  });

describe('POST /api/secrets/', () => {
  it('returns 201 {key, tags, secret_type, value} with the type name', async () => {
    const response = await create({ tags: ['prod', 'billing-team'] });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      key: 'stripe',
      tags: ['prod', 'billing_team'],
      secret_type: 'Api_Token',
      value: { token: 'site' },
    });
  });

  it('validates the value against the type schema: Schema validation failed listing each field', async () => {
    const response = await create({ value: { other: 1 } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Schema validation failed',
      detail: { token: ['This field is required.'] },
    });
  });

  it('refuses an unknown type, tag or app naming the field, and a duplicate key at the same level', async () => {
    expect(Object.keys((await create({ secret_type: 'nope' })).body.detail)).toEqual(['secret_type']);
    expect(Object.keys((await create({ tags: ['nope'] })).body.detail)).toEqual(['tags']);
    expect(Object.keys((await create({ app: 'nope' })).body.detail)).toEqual(['app']);
    await create({});
    const again = await create({});
    expect(again.status).toBe(400);
    expect(Object.keys(again.body.detail)).toEqual(['key']);
    expect((await create({ app: tenant.app.slug })).status).toBe(201);
  });

  it('answers 401 without a token and 403 to a viewer', async () => {
    expect(
      (await anonymous.post('/api/secrets/', { secret_type: 'api-token', key: 'k', value: {} })).status,
    ).toBe(401);
    const { user, api } = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, user.id, ['view_site']);
    const refused = await api.post('/api/secrets/', {
      secret_type: 'api-token',
      key: 'k',
      value: { token: 'x' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Permission denied');
  });
});

describe('GET /api/secrets/{key}/', () => {
  beforeEach(async () => {
    await create({ value: { token: 'site-level' }, tags: ['prod'] });
    await create({ value: { token: 'app-level' }, app: tenant.app.slug });
    await create({ key: 'site-only', value: { token: 'only-site' } });
  });

  it('without app searches the site level only', async () => {
    const response = await owner.get('/api/secrets/stripe/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      key: 'stripe',
      tags: ['prod'],
      secret_type: 'Api_Token',
      value: { token: 'site-level' },
    });
  });

  it('with app looks at the app level first, then the site level', async () => {
    const app = tenant.app.slug;
    expect((await owner.get(`/api/secrets/stripe/?app=${app}`)).body.value).toEqual({ token: 'app-level' });
    expect((await owner.get(`/api/secrets/site-only/?app=${app}`)).body.value).toEqual({
      token: 'only-site',
    });
  });

  it('answers 404 Secret not found naming the key and the levels searched', async () => {
    const site = await owner.get('/api/secrets/missing/');
    expect(site.status).toBe(404);
    expect(site.body).toEqual({
      error: 'Secret not found',
      detail: 'Secret "missing" not found at site level.',
    });
    const both = await owner.get(`/api/secrets/missing/?app=${tenant.app.slug}`);
    expect(both.body).toEqual({
      error: 'Secret not found',
      detail: `Secret "missing" not found at app level (app "${tenant.app.slug}") or site level.`,
    });
  });

  it('with tags answers 404 naming them when the secret has none of them', async () => {
    expect((await owner.get('/api/secrets/stripe/?tags=billing-team,prod')).status).toBe(200);
    const response = await owner.get('/api/secrets/stripe/?tags=billing-team');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'Secret not found',
      detail: 'Secret "stripe" has none of the tags: billing-team.',
    });
  });

  it('without a token returns public secrets and 401 Authentication required for private and sensitive', async () => {
    await create({ key: 'flags', secret_type: 'public-config', value: { token: 'public' } });
    await create({ key: 'root', secret_type: 'root-key', value: { token: 'root' } });
    const shown = await anonymous.get('/api/secrets/flags/');
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({
      key: 'flags',
      tags: [],
      secret_type: 'Public_Config',
      value: { token: 'public' },
    });
    for (const key of ['stripe', 'root']) {
      const refused = await anonymous.get(`/api/secrets/${key}/`);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ error: 'Authentication required', detail: expect.any(String) });
      expect(refused.text).not.toContain('site-level');
    }
  });

  it('refuses a bad token with 401 even though no token is needed', async () => {
    await create({ key: 'flags', secret_type: 'public-config', value: { token: 'public' } });
    const response = await anonymous.withToken('not-a-token').get('/api/secrets/flags/');
    expect(response.status).toBe(401);
  });

  it('signed in: needs `view` on the site (403 Permission denied otherwise), even for public secrets', async () => {
    await create({ key: 'flags', secret_type: 'public-config', value: { token: 'public' } });
    const { user, api } = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, user.id, ['access_site']);
    const refused = await api.get('/api/secrets/stripe/');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Permission denied');
    expect((await api.get('/api/secrets/flags/')).status).toBe(403);
    await grantSite(tenant, user.id, ['view_site']);
    expect((await api.get('/api/secrets/stripe/')).body.value).toEqual({ token: 'site-level' });
  });
});

describe('PUT and DELETE /api/secrets/{key}/', () => {
  beforeEach(async () => {
    await create({ tags: ['prod'] });
    await create({ value: { token: 'app-level' }, app: tenant.app.slug });
  });

  it('PUT replaces type, value and tags and returns the object; visible at once', async () => {
    const response = await owner.put('/api/secrets/stripe/', {
      secret_type: 'root-key',
      key: 'stripe',
      value: { token: 'rotated' },
      tags: ['billing_team'],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      key: 'stripe',
      tags: ['billing_team'],
      secret_type: 'Root_Key',
      value: { token: 'rotated' },
    });
    expect((await owner.get('/api/secrets/stripe/')).body.value).toEqual({ token: 'rotated' });
    expect((await owner.get(`/api/secrets/stripe/?app=${tenant.app.slug}`)).body.value).toEqual({
      token: 'app-level',
    });
  });

  it('PUT with ?app changes the app-level secret; a different key or an invalid value is a 400', async () => {
    const app = tenant.app.slug;
    const changed = await owner.put(`/api/secrets/stripe/?app=${app}`, {
      secret_type: 'api-token',
      value: { token: 'app-2' },
    });
    expect(changed.status).toBe(200);
    expect((await owner.get(`/api/secrets/stripe/?app=${app}`)).body.value).toEqual({ token: 'app-2' });
    const renamed = await owner.put('/api/secrets/stripe/', {
      secret_type: 'api-token',
      key: 'x',
      value: {},
    });
    expect(renamed.status).toBe(400);
    const invalid = await owner.put('/api/secrets/stripe/', {
      secret_type: 'api-token',
      value: { token: 5 },
    });
    expect(invalid.body).toEqual({
      error: 'Schema validation failed',
      detail: { token: ['Must be of type string.'] },
    });
    expect(
      (await owner.put('/api/secrets/none/', { secret_type: 'api-token', value: { token: 'x' } })).status,
    ).toBe(404);
  });

  it('DELETE returns {message, detail}; the secret is gone and the type count drops', async () => {
    const response = await owner.delete('/api/secrets/stripe/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Secret deleted successfully',
      detail: 'Secret "stripe" was deleted at site level.',
    });
    expect((await owner.get('/api/secrets/stripe/')).status).toBe(404);
    expect((await owner.delete(`/api/secrets/stripe/?app=${tenant.app.slug}`)).status).toBe(200);
    expect((await owner.delete('/api/secrets/stripe/')).status).toBe(404);
    expect((await owner.delete('/api/secret-types/api-token/')).status).toBe(200);
  });
});

describe('GET /api/secrets/', () => {
  beforeEach(async () => {
    await create({ key: 'alpha', tags: ['prod'] });
    await create({ key: 'beta', secret_type: 'public-config', value: { token: 'b' } });
    await create({ key: 'gamma', app: tenant.app.slug, tags: ['billing_team'] });
  });

  it('returns {items: [{key, tags, secret_type, value}], count, next, previous}, newest first', async () => {
    const response = await owner.get('/api/secrets/');
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(3);
    expect(response.body.items.map((item: { key: string }) => item.key)).toEqual(['gamma', 'beta', 'alpha']);
    expect(response.body.items[2]).toEqual({
      key: 'alpha',
      tags: ['prod'],
      secret_type: 'Api_Token',
      value: { token: 'site' },
    });
    expect(response.body.next).toBeNull();
    expect(response.body.previous).toBeNull();
  });

  it('filters by search, key, app, tags, secret_type and created_by, and orders', async () => {
    const keys = async (query: string) =>
      (await owner.get(`/api/secrets/?${query}`)).body.items.map((item: { key: string }) => item.key);
    expect(await keys('search=ET')).toEqual(['beta']);
    expect(await keys('key=alpha')).toEqual(['alpha']);
    expect(await keys(`app=${tenant.app.slug}`)).toEqual(['gamma']);
    expect(await keys('tags=prod,billing-team&ordering=key')).toEqual(['alpha', 'gamma']);
    expect(await keys('secret_type=public-config')).toEqual(['beta']);
    expect(await keys(`created_by=${tenant.ownerUser.username}&ordering=key`)).toEqual([
      'alpha',
      'beta',
      'gamma',
    ]);
    expect(await keys('created_by=nobody')).toEqual([]);
    expect(await keys('ordering=type__name')).toEqual(['alpha', 'gamma', 'beta']);
    const paged = await owner.get('/api/secrets/?page_size=2&ordering=key');
    expect(paged.body.items).toHaveLength(2);
    expect(paged.body.next).toMatch(/page=2/);
  });
});

describe('the served API description', () => {
  it('holds every route of the secret store', async () => {
    const document = await platform.api.get('/ninja-openapi.json');
    expect(document.status).toBe(200);
    const paths = document.body.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/api/secret-types/'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/secret-types/{slug}/'] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(paths['/api/secrets/'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/secrets/{key}/'] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(Object.keys(paths['/api/secrets/{key}/history/'] ?? {})).toEqual(['get']);
    expect(Object.keys(paths['/api/tags/'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/api/tags/{slug}/'] ?? {}).sort()).toEqual(['delete', 'get', 'patch', 'put']);
  });
});

describe('GET /api/secrets/{key}/history/', () => {
  it('records +, ~ and - with key, app, type, tags, user, timestamp and changes, never values', async () => {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    await create({ value: { token: marker }, tags: ['prod'] });
    await owner.put('/api/secrets/stripe/', {
      secret_type: 'api-token',
      value: { token: `${marker}-2` },
      tags: ['billing_team'],
    });
    const list = await owner.get('/api/secrets/?ordering=key');
    const history = await owner.get('/api/secrets/stripe/history/');
    await owner.delete('/api/secrets/stripe/');
    const after = await owner.get('/api/secrets/stripe/history/');
    expect(history.status).toBe(200);
    expect(after.body).toMatchObject({
      key: 'stripe',
      app: null,
      total_count: 3,
      limit: 10,
      offset: 0,
      has_next: false,
      has_previous: false,
    });
    const [deleted, changed, created] = after.body.results;
    expect(created).toEqual({
      action: '+',
      user: tenant.ownerUser.username,
      timestamp: expect.stringMatching(/Z$/),
      key: 'stripe',
      app: null,
      secret_type: 'Api_Token',
      tags: ['prod'],
      changes: {},
    });
    expect(changed).toMatchObject({
      action: '~',
      tags: ['billing_team'],
      changes: { tags: { from: ['prod'], to: ['billing_team'] } },
    });
    expect(deleted).toMatchObject({ action: '-', key: 'stripe' });
    // The values: in the list as the spec shows, never in the history nor in any log line.
    expect(list.text).toContain(marker);
    expect(history.text).not.toContain(marker);
    expect(after.text).not.toContain(marker);
    expect(lines.join('\n')).not.toContain(marker);
  });

  it('pages with limit (max 100) and offset; 404 for a key that never existed', async () => {
    await create({});
    for (const token of ['a', 'b', 'c'])
      await owner.put('/api/secrets/stripe/', { secret_type: 'api-token', value: { token } });
    const page = await owner.get('/api/secrets/stripe/history/?limit=2&offset=1');
    expect(page.body).toMatchObject({
      total_count: 4,
      limit: 2,
      offset: 1,
      has_next: true,
      has_previous: true,
    });
    expect(page.body.results).toHaveLength(2);
    expect((await owner.get('/api/secrets/stripe/history/?limit=101')).status).toBe(400);
    const app = await owner.get(`/api/secrets/stripe/history/?app=${tenant.app.slug}`);
    expect(app.status).toBe(404);
    expect(app.body.error).toBe('Secret not found');
  });
});

describe('the app query parameter', () => {
  it('refuses an app reference longer than any app slug with 400 naming app, on every secret route', async () => {
    await create({});
    const app = 'x'.repeat(1500);
    const answers = [
      await owner.get(`/api/secrets/stripe/?app=${app}`),
      await owner.put(`/api/secrets/stripe/?app=${app}`, { secret_type: 'api-token', value: { token: 'x' } }),
      await owner.delete(`/api/secrets/stripe/?app=${app}`),
      await owner.get(`/api/secrets/stripe/history/?app=${app}`),
      await owner.get(`/api/secrets/?app=${app}`),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('app');
    }
  });
});
