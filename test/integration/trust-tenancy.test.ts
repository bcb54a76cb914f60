import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: self-service. A tenant's PRE_USER_CREATE subscriber that never answers
 * holds only its own tenant's user creations, and only up to the subscriber timeout (here a fraction of a second;
 * at most 25 s, below API Gateway's 29 s); one user cannot create organizations or sites without bound, and
 * reaching a quota is one's own business, not another tenant's.
 */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform(
    {
      EVENT_FUNCTIONS_DIR: 'test/fixtures/subscribers',
      EVENT_FUNCTION_TIMEOUT_SECONDS: '0.2',
      ORGANIZATIONS_PER_USER: '2',
      SITES_PER_ORGANIZATION: '2',
    },
    {},
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

/** A tenant whose app subscribes `slow.mjs` (never answers) to PRE_USER_CREATE. */
async function hangingTenant(): Promise<Tenant & { functionId: number; functionName: string }> {
  const tenant = await createTenant(platform);
  const functionName = unique('Hang');
  const fn = await tenant.owner.post(`/api/apps/${tenant.app.slug}/functions/`, {
    name: functionName,
    target: 'slow.mjs',
  });
  expect(fn.status).toBe(201);
  const sub = await tenant.owner.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', {
    function_id: fn.body.data.id,
  });
  expect(sub.status).toBe(200);
  return { ...tenant, functionId: fn.body.data.id, functionName };
}

const newUser = () => {
  const username = unique('new');
  return { email: `${username}@example.com`, username, password: 'a quiet harbour at dawn 42' };
};

async function userExists(email: string): Promise<boolean> {
  const users = await platform.adminApi.get(`/api/cloud/users/?search=${encodeURIComponent(email)}`);
  return users.body.results.some((u: { email: string }) => u.email === email);
}

describe('cross-tenant trust suite: a hanging user-creation subscriber', () => {
  it("is cut off at the subscriber timeout: the tenant's own invitation is refused with the 422 envelope, nothing saved", async () => {
    const tenant = await hangingTenant();
    const email = `${unique('invitee')}@example.com`;
    const response = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      {
        invitee_identifier: email,
      },
    );
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      detail: `Function "${tenant.functionName}" did not finish within 0.2 s.`,
      event: 'PRE_USER_CREATE',
      function_id: tenant.functionId,
      function_name: tenant.functionName,
    });
    expect(await userExists(email)).toBe(false);
  });

  it("holds no other tenant's user creation, even while it hangs", async () => {
    const hanging = await hangingTenant();
    const other = await createTenant(platform);
    const [held, free] = await Promise.all([
      platform.adminApi.forSite(hanging.site.slug).post('/api/cloud/users/', newUser()),
      platform.adminApi.forSite(other.site.slug).post('/api/cloud/users/', newUser()),
    ]);
    expect(held.status).toBe(422);
    expect(held.body.detail).toBe(`Function "${hanging.functionName}" did not finish within 0.2 s.`);
    expect(free.status).toBe(201);
    const invited = await other.owner.post(
      `/api/cloud/organizations/${other.organization.slug}/invitations/`,
      {
        invitee_identifier: `${unique('invitee')}@example.com`,
      },
    );
    expect(invited.status).toBe(201);
  });
});

describe('cross-tenant trust suite: self-service quotas', () => {
  const newOrganization = (api: ApiClient) => api.post('/api/cloud/organizations/', { name: unique('Org') });
  const newSite = (api: ApiClient, org: string) =>
    api.post(`/api/cloud/organizations/${org}/sites/`, { name: unique('Site') });

  it('stop one user at ORGANIZATIONS_PER_USER x SITES_PER_ORGANIZATION sites, however many requests it sends', async () => {
    const { api } = await createUser(platform);
    const orgs = await Promise.all(Array.from({ length: 6 }, () => newOrganization(api)));
    const created = orgs.filter((o) => o.status === 201).map((o) => o.body.slug as string);
    expect(created).toHaveLength(2);
    expect(orgs.filter((o) => o.status === 403)).toHaveLength(4);
    const sites = await Promise.all(
      created.flatMap((org) => Array.from({ length: 5 }, () => newSite(api, org))),
    );
    expect(sites.filter((s) => s.status === 201)).toHaveLength(4);
    expect(sites.filter((s) => s.status === 403)).toHaveLength(6);
  });

  it("are one's own: a user at its limits leaves other users and other organizations their whole allowance", async () => {
    const greedy = await createUser(platform);
    const greedyOrgs: string[] = [];
    for (let i = 0; i < 2; i++) greedyOrgs.push((await newOrganization(greedy.api)).body.slug);
    for (let i = 0; i < 2; i++) expect((await newSite(greedy.api, greedyOrgs[0] as string)).status).toBe(201);
    expect((await newOrganization(greedy.api)).status).toBe(403);
    expect((await newSite(greedy.api, greedyOrgs[0] as string)).status).toBe(403);

    const neighbour = await createUser(platform);
    const org = (await newOrganization(neighbour.api)).body.slug as string;
    expect((await newOrganization(neighbour.api)).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await newSite(neighbour.api, org)).status).toBe(201);
    // The greedy user cannot spend another organization's allowance: it is not a member there.
    expect((await newSite(greedy.api, org)).status).toBe(404);
  });

  it('cannot push an organization onto another user who is at the limit', async () => {
    const full = await createUser(platform);
    for (let i = 0; i < 2; i++) expect((await newOrganization(full.api)).status).toBe(201);
    const giver = await createUser(platform);
    const org = (await newOrganization(giver.api)).body.slug as string;
    expect(
      (await platform.adminApi.post(`/api/cloud/organizations/${org}/members/`, { user_id: full.user.id }))
        .status,
    ).toBe(200);
    const pushed = await giver.api.post(`/api/cloud/organizations/${org}/transfer-ownership/`, {
      user_id: full.user.id,
    });
    expect(pushed.status).toBe(400);
    expect(pushed.body).toEqual({ user_id: ['The user has reached the limit of 2 organizations.'] });
  });
});
