import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLog, type LogLine } from '../support/capture-log';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant, unique } from '../support/tenant';

/**
 * PRE_USER_CREATE and POST_USER_CREATE on the local runner, through HTTP: every subscriber is a module of the
 * tests' functions directory (test/fixtures/subscribers), run in this process.
 */

interface Recorded {
  event: { event: string; function_id: number; task_id: string; data: Record<string, unknown> };
  requestId: string;
}
const recorded = () => ((globalThis as { subscriberEvents?: Recorded[] }).subscriberEvents ??= []);

let platform: TestPlatform;
const { log, lines, until } = captureLog();

beforeAll(async () => {
  platform = await startTestPlatform(
    { EVENT_FUNCTIONS_DIR: 'test/fixtures/subscribers', EVENT_FUNCTION_TIMEOUT_SECONDS: '1' },
    { log },
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

/** A tenant whose app subscribes the given modules to an event. */
async function tenantWith(event: string, ...targets: string[]): Promise<Tenant & { functionIds: number[] }> {
  const tenant = await createTenant(platform);
  const functionIds: number[] = [];
  for (const target of targets) {
    const fn = await tenant.owner.post(`/api/apps/${tenant.app.slug}/functions/`, {
      name: unique('Fn'),
      target,
    });
    expect(fn.status).toBe(201);
    const sub = await tenant.owner.post(`/api/cloud/events/${event}/subscribe/`, {
      function_id: fn.body.data.id,
    });
    expect(sub.status).toBe(200);
    functionIds.push(fn.body.data.id);
  }
  return { ...tenant, functionIds };
}

const newUser = (domain = 'example.com') => {
  const username = unique('new');
  return { email: `${username}@${domain}`, username, password: 'a quiet harbour at dawn 42' };
};

/** The superuser's admin create, in the tenant's site (X-Site). */
const adminCreate = (tenant: Tenant, body: object) =>
  platform.adminApi.forSite(tenant.site.slug).post('/api/cloud/users/', body);

async function userExists(email: string): Promise<boolean> {
  const users = await platform.adminApi.get(`/api/cloud/users/?search=${encodeURIComponent(email)}`);
  expect(users.status).toBe(200);
  const list = (users.body.results ?? users.body) as Array<{ email: string }>;
  return list.some((user) => user.email === email);
}

const published = (event: string): LogLine[] =>
  lines.filter((line) => line.message === 'event_published' && line.fields.event === event);

describe('PRE_USER_CREATE', () => {
  it('lets a passing subscriber see the proposed user, then saves it', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'record.mjs', 'allow.mjs');
    const body = newUser();
    const response = await adminCreate(tenant, body);
    expect(response.status).toBe(201);
    const seen = recorded().find((r) => r.event.data.email === body.email);
    expect(seen?.event).toMatchObject({
      event: 'PRE_USER_CREATE',
      function_id: tenant.functionIds[0],
      data: { id: response.body.id, email: body.email, username: body.username, is_active: true },
    });
    expect(seen?.event.data).not.toHaveProperty('password_hash');
    expect(seen?.event.data).not.toHaveProperty('password');
    expect(await userExists(body.email)).toBe(true);
    const result = published('PRE_USER_CREATE').at(-1)?.fields;
    expect(result).toMatchObject({
      passed: true,
      result: { event: 'PRE_USER_CREATE', total_subscribers: 2 },
    });
    const tasks = ((result?.result ?? {}) as { tasks: Array<Record<string, unknown>> }).tasks;
    expect(tasks.map((t) => t.function_id).sort()).toEqual([...tenant.functionIds].sort());
    for (const task of tasks)
      expect(task).toEqual({
        function_id: expect.any(Number),
        function_name: expect.any(String),
        task_id: expect.any(String),
        invocation_id: expect.any(String),
      });
  });

  it('runs the subscribers concurrently (two that each wait for the other both finish)', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'barrier.mjs', 'barrier.mjs');
    const response = await adminCreate(tenant, newUser());
    expect(response.status).toBe(201);
  });

  it('blocks the admin create when a subscriber refuses: 422 with its message, and no user exists', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'record.mjs', 'veto.mjs');
    const refused = newUser('example.com');
    const response = await adminCreate(tenant, refused);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: 'Only @example.org addresses may sign up.',
      event: 'PRE_USER_CREATE',
      function_id: tenant.functionIds[1],
      function_name: expect.any(String),
    });
    expect(await userExists(refused.email)).toBe(false);
    expect(
      (
        await platform.api.post('/api/auth/jwt/token/', {
          username: refused.username,
          password: refused.password,
        })
      ).status,
    ).toBe(401);
    // Every subscriber ran to the end, the accepting one included.
    expect(recorded().some((r) => r.event.data.email === refused.email)).toBe(true);
    // The same user from the allowed domain passes.
    const allowed = newUser('example.org');
    expect((await adminCreate(tenant, allowed)).status).toBe(201);
  });

  it('blocks the invitation placeholder: 422 to the inviter, no user and no invitation', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'veto.mjs');
    const email = `${unique('invitee')}@example.com`;
    const path = `/api/cloud/organizations/${tenant.organization.slug}/invitations/`;
    const response = await tenant.owner.post(path, { invitee_identifier: email });
    expect(response.status).toBe(422);
    expect(response.body.detail).toBe('Only @example.org addresses may sign up.');
    expect(await userExists(email)).toBe(false);
    const invitations = await tenant.owner.get(path);
    expect(JSON.stringify(invitations.body)).not.toContain(email);
  });

  it("blocks an account created in the organization's member list (superuser)", async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'veto.mjs');
    const body = newUser();
    const response = await platform.adminApi.post(
      `/api/cloud/organizations/${tenant.organization.slug}/members/`,
      body,
    );
    expect(response.status).toBe(422);
    expect(await userExists(body.email)).toBe(false);
  });

  it('fails a subscriber that does not finish within the timeout: 422, no user', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'slow.mjs');
    const body = newUser();
    const response = await adminCreate(tenant, body);
    expect(response.status).toBe(422);
    expect(response.body.detail).toMatch(/^Function ".+" did not finish within 1 s\.$/);
    expect(await userExists(body.email)).toBe(false);
  });

  it('refuses through a callback-style handler', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'callback-style.mjs');
    const response = await adminCreate(tenant, newUser());
    expect(response.status).toBe(422);
    expect(response.body.detail).toBe('Refused through the callback.');
  });

  it('publishes EXECUTION_ERROR for a function that cannot be started, and saves nothing', async () => {
    const tenant = await tenantWith('PRE_USER_CREATE', 'no-handler.mjs');
    const body = newUser();
    const response = await adminCreate(tenant, body);
    expect(response.status).toBe(422);
    expect(response.body.detail).toMatch(/could not be started/);
    expect(await userExists(body.email)).toBe(false);
    expect(published('PRE_USER_CREATE').at(-1)?.fields.result).toEqual({
      status: 'error',
      code: 'EXECUTION_ERROR',
      message: 'Function could not be started: The module "no-handler.mjs" exports no handler function.',
      data: {
        function_id: tenant.functionIds[0],
        function_name: expect.any(String),
        status: 'not_started',
        task_id: expect.any(String),
      },
    });
  });

  it("fires only the subscriptions of the creation's site", async () => {
    const vetoing = await tenantWith('PRE_USER_CREATE', 'veto.mjs');
    const elsewhere = await createTenant(platform);
    expect((await adminCreate(elsewhere, newUser())).status).toBe(201);
    // Without a site (no X-Site, no DEFAULT_SITE) no subscription fires.
    expect((await platform.adminApi.post('/api/cloud/users/', newUser())).status).toBe(201);
    expect((await adminCreate(vetoing, newUser())).status).toBe(422);
  });
});

describe('POST_USER_CREATE', () => {
  it('tells subscribers the saved user with its id, without waiting for them', async () => {
    const tenant = await tenantWith('POST_USER_CREATE', 'record.mjs');
    const body = newUser();
    const response = await adminCreate(tenant, body);
    expect(response.status).toBe(201);
    // Published once the subscribers are started (the request did not wait for them): await that line.
    await until(
      (line) =>
        line.message === 'event_published' &&
        (line.fields.result as { tasks?: Array<{ function_id: number }> })?.tasks?.[0]?.function_id ===
          tenant.functionIds[0],
    );
    const seen = recorded().find(
      (r) => r.event.event === 'POST_USER_CREATE' && r.event.data.email === body.email,
    );
    expect(seen?.event.data).toMatchObject({ id: response.body.id, email: body.email });
    expect(published('POST_USER_CREATE').at(-1)?.fields.result).toMatchObject({
      event: 'POST_USER_CREATE',
      total_subscribers: 1,
      tasks: [{ function_id: tenant.functionIds[0] }],
    });
  });

  it('keeps the user and the 201 when a subscriber fails; the failure is logged', async () => {
    const tenant = await tenantWith('POST_USER_CREATE', 'veto.mjs', 'slow.mjs');
    const body = newUser();
    const response = await adminCreate(tenant, body);
    expect(response.status).toBe(201);
    expect(await userExists(body.email)).toBe(true);
    // Both failures are logged when they happen (the slow one after the 1 s timeout): awaited, not polled.
    const failures = await until(
      (line) =>
        line.message === 'event_subscriber_failed' &&
        tenant.functionIds.includes(line.fields.function_id as number),
      2,
    );
    expect(failures.map((line) => line.fields.error).sort()).toEqual([
      'Only @example.org addresses may sign up.',
      'timed out',
    ]);
  });
});

describe('invitations across the organization', () => {
  it('fires the subscriptions of every site of the inviting organization', async () => {
    const tenant = await createTenant(platform);
    const second = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/sites/`, {
      name: unique('Site'),
    });
    const owner2: ApiClient = tenant.owner.forSite(second.body.slug);
    const app = await owner2.post('/api/apps/', { name: unique('App') });
    const fn = await owner2.post(`/api/apps/${app.body.slug}/functions/`, {
      name: 'Veto',
      target: 'veto.mjs',
    });
    await owner2.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', { function_id: fn.body.data.id });
    const path = `/api/cloud/organizations/${tenant.organization.slug}/invitations/`;
    expect((await tenant.owner.post(path, { invitee_identifier: `${unique('i')}@example.com` })).status).toBe(
      422,
    );
    expect((await tenant.owner.post(path, { invitee_identifier: `${unique('i')}@example.org` })).status).toBe(
      201,
    );
  });
});
