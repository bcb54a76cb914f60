import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant, unique } from '../support/tenant';

/** The functions registry and the events endpoints of the spec's table (docs/events.md). */

const functionsDir = 'test/fixtures/subscribers';
let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform({ EVENT_FUNCTIONS_DIR: functionsDir }, {}, { dataPlane: false });
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform.stop();
});

const functionsOf = (app: string) => `/api/apps/${app}/functions/`;

async function registerFunction(t: Tenant, target = 'allow.mjs', app = t.app.slug) {
  const response = await t.owner.post(functionsOf(app), { name: unique('Fn'), target });
  expect(response.status).toBe(201);
  return response.body.data as { id: number; name: string; slug: string };
}

describe('functions registry', () => {
  it('registers, lists, gets and deletes a function of the app', async () => {
    const made = await tenant.owner.post(functionsOf(tenant.app.slug), {
      name: 'Check Domain',
      target: 'veto.mjs',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      success: true,
      data: { name: 'Check Domain', slug: 'check-domain', target: 'veto.mjs', app_slug: tenant.app.slug },
    });
    expect(Number.isInteger(made.body.data.id)).toBe(true);
    const id = made.body.data.id;
    const list = await tenant.owner.get(functionsOf(tenant.app.slug));
    expect(list.body.data.functions.map((f: { id: number }) => f.id)).toContain(id);
    const got = await tenant.owner.get(`${functionsOf(tenant.app.slug)}${id}/`);
    expect(got.body.data).toEqual(made.body.data);
    const gone = await tenant.owner.delete(`${functionsOf(tenant.app.slug)}${id}/`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ success: true, message: 'Function deleted successfully', data: {} });
    const missing = await tenant.owner.get(`${functionsOf(tenant.app.slug)}${id}/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, message: `Function ${id} does not exist in this app.` });
  });

  it.each([
    ['../functions/subscribers/allow.mjs', 'without "." or ".." segments'],
    ['nested/../allow.mjs', 'without "." or ".." segments'],
    ['/etc/passwd.js', 'relative path'],
    ['allow.ts', '.js, .mjs or .cjs'],
    ['missing.mjs', 'No module "missing.mjs"'],
  ])('refuses the local target %s (400 naming target)', async (target, message) => {
    const response = await tenant.owner.post(functionsOf(tenant.app.slug), { name: unique('Bad'), target });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.message).toContain(message);
  });

  it('refuses a Lambda ARN on the local runner', async () => {
    const target = 'arn:aws:lambda:us-east-1:123456789012:function:tenant-fn';
    const response = await tenant.owner.post(functionsOf(tenant.app.slug), { name: unique('Arn'), target });
    expect(response.status).toBe(400);
  });

  it('refuses a duplicate slug in the app (400) and an unknown app (404)', async () => {
    const fn = await registerFunction(tenant);
    const again = await tenant.owner.post(functionsOf(tenant.app.slug), {
      name: fn.name,
      target: 'allow.mjs',
    });
    expect(again.status).toBe(400);
    expect(again.body.message).toContain('already exists');
    const noApp = await tenant.owner.post(functionsOf('no-such-app'), { name: 'X', target: 'allow.mjs' });
    expect(noApp.status).toBe(404);
    expect(noApp.body).toEqual({
      success: false,
      message: 'No app with the slug "no-such-app" exists in this site.',
    });
  });

  it('lets only site configurers register (site:configure); viewers may read', async () => {
    const { user, api } = await createUser(platform);
    await grantSite(tenant, user.id, ['view_site']);
    const viewer = api.forSite(tenant.site.slug);
    expect((await viewer.post(functionsOf(tenant.app.slug), { name: 'X', target: 'allow.mjs' })).status).toBe(
      403,
    );
    expect((await viewer.get(functionsOf(tenant.app.slug))).status).toBe(200);
  });
});

describe('events endpoints', () => {
  it('GET /api/cloud/events/ lists the event types (authenticated)', async () => {
    const response = await tenant.owner.get('/api/cloud/events/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Events retrieved successfully',
      data: { events: ['PRE_USER_CREATE', 'POST_USER_CREATE'] },
    });
    expect((await platform.api.get('/api/cloud/events/')).status).toBe(401);
  });

  it('subscribes a function once; a second subscription of the pair is a 400', async () => {
    const fn = await registerFunction(tenant);
    const path = '/api/cloud/events/PRE_USER_CREATE/subscribe/';
    const first = await tenant.owner.post(path, { function_id: fn.id });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      data: {
        event: 'PRE_USER_CREATE',
        function: fn.id,
        function_name: fn.name,
        function_slug: fn.slug,
        app_name: tenant.app.name,
        app_slug: tenant.app.slug,
      },
    });
    expect(Number.isInteger(first.body.data.id)).toBe(true);
    const second = await tenant.owner.post(path, { function_id: fn.id });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      success: false,
      message: `Function ${fn.id} is already subscribed to PRE_USER_CREATE.`,
    });
    // The same function may subscribe to the other event.
    expect(
      (await tenant.owner.post('/api/cloud/events/POST_USER_CREATE/subscribe/', { function_id: fn.id }))
        .status,
    ).toBe(200);
  });

  it('lets only one of two parallel subscriptions of a pair succeed (conditional write)', async () => {
    const fn = await registerFunction(tenant);
    const path = '/api/cloud/events/POST_USER_CREATE/subscribe/';
    const results = await Promise.all([1, 2, 3].map(() => tenant.owner.post(path, { function_id: fn.id })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('answers 400 for an invalid event type and for an unknown function', async () => {
    const fn = await registerFunction(tenant);
    const invalid = await tenant.owner.post('/api/cloud/events/USER_DELETED/subscribe/', {
      function_id: fn.id,
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toEqual({
      success: false,
      message: 'Invalid event type "USER_DELETED". Valid event types: PRE_USER_CREATE, POST_USER_CREATE.',
    });
    const unknown = await tenant.owner.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', {
      function_id: 999999,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ success: false, message: 'Function 999999 does not exist.' });
  });

  it("treats another site's function as unknown", async () => {
    const other = await createTenant(platform);
    const fn = await registerFunction(other);
    const response = await tenant.owner.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', {
      function_id: fn.id,
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe(`Function ${fn.id} does not exist.`);
  });

  it('unsubscribes (200 with empty data), then 404 for the missing subscription', async () => {
    const fn = await registerFunction(tenant);
    await tenant.owner.post('/api/cloud/events/POST_USER_CREATE/subscribe/', { function_id: fn.id });
    const path = '/api/cloud/events/POST_USER_CREATE/unsubscribe/';
    const done = await tenant.owner.post(path, { function_id: fn.id });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      success: true,
      message: 'Unsubscribed from POST_USER_CREATE successfully',
      data: {},
    });
    const again = await tenant.owner.post(path, { function_id: fn.id });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({
      success: false,
      message: `Function ${fn.id} is not subscribed to POST_USER_CREATE.`,
    });
    const invalid = await tenant.owner.post('/api/cloud/events/NOPE/unsubscribe/', { function_id: fn.id });
    expect(invalid.status).toBe(400);
  });

  it("lists an app's subscribers with total_subscribers, filtered to the app", async () => {
    const otherApp = await tenant.owner.post('/api/apps/', { name: unique('App') });
    const mine = [await registerFunction(tenant), await registerFunction(tenant)];
    const theirs = await registerFunction(tenant, 'allow.mjs', otherApp.body.slug);
    for (const fn of [...mine, theirs])
      await tenant.owner.post('/api/cloud/events/POST_USER_CREATE/subscribe/', { function_id: fn.id });
    const response = await tenant.owner.get(`/api/apps/${otherApp.body.slug}/events/POST_USER_CREATE/`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Subscribers retrieved successfully',
      data: {
        event: 'POST_USER_CREATE',
        app: { id: otherApp.body.id, name: otherApp.body.name, slug: otherApp.body.slug },
        total_subscribers: 1,
        subscribers: [
          {
            subscriber_id: expect.any(Number),
            event: 'POST_USER_CREATE',
            function_id: theirs.id,
            function_name: theirs.name,
            function_slug: theirs.slug,
            app_id: otherApp.body.id,
            app_name: otherApp.body.name,
            app_slug: otherApp.body.slug,
            created_at: expect.any(String),
          },
        ],
      },
    });
    const invalid = await tenant.owner.get(`/api/apps/${tenant.app.slug}/events/NOPE/`);
    expect(invalid.status).toBe(400);
  });

  it("removes a deleted function's subscriptions", async () => {
    const fn = await registerFunction(tenant);
    await tenant.owner.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', { function_id: fn.id });
    await tenant.owner.delete(`${functionsOf(tenant.app.slug)}${fn.id}/`);
    const listed = await tenant.owner.get(`/api/apps/${tenant.app.slug}/events/PRE_USER_CREATE/`);
    expect(listed.body.data.subscribers.map((s: { function_id: number }) => s.function_id)).not.toContain(
      fn.id,
    );
    const gone = await tenant.owner.post('/api/cloud/events/PRE_USER_CREATE/unsubscribe/', {
      function_id: fn.id,
    });
    expect(gone.status).toBe(404);
  });
});
