import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

/**
 * `GET /api/cloud/users/me/site-permissions/` (an addition, docs/api-decisions.md): the caller's own permissions on
 * the request's site and the actions the policy grants for them, so a client (the console) shows only the actions
 * the API would allow. Decided by the pipeline's policy, tested over HTTP, across tenants.
 */

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
const path = '/api/cloud/users/me/site-permissions/';

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
  tenant = await createTenant(platform);
  other = await createTenant(platform);
}, 120_000);
afterAll(async () => {
  await platform.stop();
});

describe('GET /api/cloud/users/me/site-permissions/', () => {
  it("tells the organization's owner every action, social app writes included", async () => {
    const answer = await tenant.owner.get(path);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({
      site: tenant.site.slug,
      user_id: tenant.ownerUser.id,
      is_superuser: false,
      organization_role: 'owner',
      permissions: [],
      actions: ['administer', 'configure', 'manage_users', 'change', 'delete', 'view', 'access'],
      social_app_writes: true,
    });
  });

  it('tells a member with change_site what it grants: change, view, access, no more', async () => {
    const writer = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, writer.user.id, ['change_site']);
    const answer = await writer.api.get(path);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({
      site: tenant.site.slug,
      user_id: writer.user.id,
      organization_role: 'member',
      permissions: ['change_site'],
      actions: ['change', 'view', 'access'],
      social_app_writes: false,
    });
    // The answer is the pipeline's verdict: what it lists is allowed, what it leaves out is refused.
    const secretTypes = await writer.api.post('/api/secret-types/', {
      name: 'refused_type',
      sensitivity_level: 'private',
      schema: { type: 'object' },
    });
    expect(secretTypes.status).toBe(403);
  });

  it('follows a change of the grant at once', async () => {
    const viewer = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, viewer.user.id, ['view_site']);
    expect((await viewer.api.get(path)).body.actions).toEqual(['view', 'access']);
    const regranted = await tenant.owner.put(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/${viewer.user.id}/`,
      { permissions: ['manage_site', 'delete_site'] },
    );
    expect(regranted.status).toBe(200);
    const answer = await viewer.api.get(path);
    expect(answer.body.permissions).toEqual(['delete_site', 'manage_site']);
    expect(answer.body.actions).toEqual(['configure', 'delete', 'view', 'access']);
  });

  it("an admin of the organization may do everything but write social apps (the owner's)", async () => {
    const admin = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, admin.user.id, []);
    const promoted = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/members/`,
      {
        user_id: admin.user.id,
        role: 'admin',
      },
    );
    expect(promoted.status, promoted.text).toBe(200);
    const answer = await admin.api.get(path);
    expect(answer.body.organization_role).toBe('admin');
    expect(answer.body.actions).toHaveLength(7);
    expect(answer.body.social_app_writes).toBe(false);
  });

  it('gives a user of another organization nothing: 403, for the site and for a member of it without grants', async () => {
    const stranger = other.owner.forSite(tenant.site.slug);
    const answer = await stranger.get(path);
    expect(answer.status).toBe(403);
    expect(JSON.stringify(answer.body)).not.toContain(tenant.site.slug);
    // Its own site answers for its own site only.
    const own = await other.owner.get(path);
    expect(own.body.site).toBe(other.site.slug);
    // A member of the organization without any permission on the site: 403 too.
    const bare = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, bare.user.id, []);
    expect((await bare.api.get(path)).status).toBe(403);
  });

  it('needs a signed-in caller and an existing site', async () => {
    expect((await platform.api.forSite(tenant.site.slug).get(path)).status).toBe(401);
    expect((await tenant.owner.forSite('no-such-site-here').get(path)).status).toBe(404);
  });

  it('tells a superuser everything on any site', async () => {
    const answer = await platform.adminApi.forSite(tenant.site.slug).get(path);
    expect(answer.status).toBe(200);
    expect(answer.body.is_superuser).toBe(true);
    expect(answer.body.organization_role).toBeNull();
    expect(answer.body.actions).toHaveLength(7);
    expect(answer.body.social_app_writes).toBe(true);
  });
});
