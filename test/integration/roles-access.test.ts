import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleRoutes } from '../../shared/roles/routes';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;
let appRole: string;
let siteRole: string;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
  tenant = await createTenant(platform);
  appRole = (await tenant.owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Editor' })).body.data.slug;
  siteRole = (await tenant.owner.post('/api/roles/', { name: 'Staff', role_slugs: [appRole] })).body.data
    .slug;
});
afterAll(async () => {
  await platform.stop();
});

/** A signed-in user of the tenant's site holding these site permissions. */
async function withPermissions(...permissions: string[]): Promise<{ api: ApiClient; username: string }> {
  const { user, api } = await createUser(platform, {}, tenant.site.slug);
  if (permissions.length > 0) await grantSite(tenant, user.id, permissions);
  return { api, username: user.username };
}

const forbidden = {
  error: 'Permission denied',
  detail: 'You do not have permission to perform this action.',
  code: 'permission_denied',
};

describe('authentication', () => {
  it.each(roleRoutes.map((route) => [route.method, route.path] as const))(
    'returns 401 for %s %s without a token',
    async (method, path) => {
      const concrete = path.replace(/\{[a-z_]+\}/g, 'x');
      const body = method === 'GET' ? undefined : {};
      const response = await platform.api.forSite(tenant.site.slug).request(method, concrete, body);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: 'Authentication required',
        detail: 'Authentication credentials were not provided.',
        code: 'not_authenticated',
      });
    },
  );
});

describe('request errors', () => {
  it('returns 400 in the roles envelope for a body that is not valid JSON', async () => {
    const response = await tenant.owner.post('/api/roles/', undefined, {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'JSON parse error: the request body is not valid JSON.',
      detail: 'non_field_errors: The request body is not valid JSON.',
      code: 'parse_error',
    });
  });

  it('returns 400 naming an unknown body field', async () => {
    const response = await tenant.owner.post('/api/roles/', { name: 'Team', colour: 'red' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      detail: 'colour: Unknown field.',
      code: 'validation_error',
    });
  });
});

describe('permissions', () => {
  const reads = () => [
    `/api/app/${tenant.app.slug}/roles`,
    `/api/app/${tenant.app.slug}/roles/${appRole}`,
    '/api/roles/',
    `/api/roles/${siteRole}`,
    `/api/roles/${appRole}/users`,
    `/api/roles/${appRole}/descendants`,
    `/api/roles/${appRole}/ancestors`,
  ];

  it('shows a signed-in user without any permission on the site their own roles, and nothing else', async () => {
    const { api, username } = await withPermissions();
    await tenant.owner.post('/api/assign/roles', { roles: [appRole], usernames: [username] });
    const mine = await api.get('/api/users/me/roles');
    expect(mine.status).toBe(200);
    expect(mine.body.data.app_roles).toEqual([{ name: 'Editor', slug: appRole }]);
    expect((await api.get(`/api/users/${username}/roles`)).status).toBe(200);
    expect((await api.get(`/api/users/${tenant.ownerUser.username}/roles`)).body).toEqual(forbidden);
    for (const path of reads()) expect((await api.get(path)).body).toEqual(forbidden);
  });

  it('lets access_site read its own roles only', async () => {
    const { api, username } = await withPermissions('access_site');
    await tenant.owner.post('/api/assign/roles', { roles: [appRole], usernames: [username] });
    const mine = await api.get('/api/users/me/roles');
    expect(mine.status).toBe(200);
    expect(mine.body.data.app_roles).toEqual([{ name: 'Editor', slug: appRole }]);
    expect((await api.get(`/api/users/${username.toUpperCase()}/roles`)).status).toBe(200);
    expect((await api.get(`/api/users/${tenant.ownerUser.username}/roles`)).body).toEqual(forbidden);
    for (const path of reads()) expect((await api.get(path)).status).toBe(403);
  });

  it('lets view_site read roles, holders and anyone’s roles, and nothing more', async () => {
    const { api } = await withPermissions('view_site');
    for (const path of reads()) expect((await api.get(path)).status).toBe(200);
    expect((await api.get(`/api/users/${tenant.ownerUser.username}/roles`)).status).toBe(200);
    expect((await api.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Nope' })).body).toEqual(forbidden);
    expect((await api.post('/api/assign/roles', { roles: [appRole], usernames: ['x'] })).status).toBe(403);
  });

  it('lets manage_site define roles but not assign them', async () => {
    const { api } = await withPermissions('manage_site');
    const created = await api.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Configured' });
    expect(created.status).toBe(201);
    expect(
      (await api.put(`/api/app/${tenant.app.slug}/roles/${created.body.data.slug}`, { description: 'x' }))
        .status,
    ).toBe(200);
    const site = await api.post('/api/roles/', { name: 'Configured Team' });
    expect(site.status).toBe(201);
    expect((await api.put(`/api/roles/${site.body.data.slug}`, { description: 'x' })).status).toBe(200);
    expect((await api.delete(`/api/roles/${site.body.data.slug}`)).status).toBe(200);
    expect((await api.delete(`/api/app/${tenant.app.slug}/roles/${created.body.data.slug}`)).status).toBe(
      200,
    );
    for (const path of reads()) expect((await api.get(path)).status).toBe(200);
    expect((await api.post(`/api/roles/${appRole}/users`, { usernames: [] })).status).toBe(403);
    expect((await api.post('/api/users/me/roles', { role_slugs: [appRole] })).status).toBe(403);
  });

  it('lets manage_site_users assign and revoke roles but not define them', async () => {
    const { api, username } = await withPermissions('manage_site_users');
    expect((await api.post('/api/assign/roles', { roles: [appRole], usernames: [username] })).status).toBe(
      200,
    );
    expect((await api.post(`/api/roles/${appRole}/users`, { usernames: [username] })).status).toBe(200);
    expect((await api.put(`/api/roles/${appRole}/users`, { usernames: [username] })).status).toBe(200);
    expect(
      (await api.patch(`/api/roles/${appRole}/users`, { usernames: [username], expires_at: null })).status,
    ).toBe(200);
    expect((await api.post('/api/users/me/roles', { role_slugs: [siteRole] })).status).toBe(200);
    expect((await api.delete('/api/users/me/roles', { role_slugs: [siteRole] })).status).toBe(200);
    expect((await api.delete(`/api/roles/${appRole}/users`, { usernames: [username] })).status).toBe(200);
    expect((await api.delete('/api/revoke/roles', { roles: [appRole], usernames: [username] })).status).toBe(
      200,
    );
    expect((await api.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Nope' })).body).toEqual(forbidden);
    expect((await api.post('/api/roles/', { name: 'Nope' })).status).toBe(403);
    expect((await api.delete(`/api/roles/${siteRole}`)).status).toBe(403);
  });

  it('refuses a user without manage_site_users assigning a role to itself', async () => {
    const { api } = await withPermissions('view_site', 'change_site', 'manage_site');
    const response = await api.post('/api/users/me/roles', { role_slugs: [appRole] });
    expect(response.status).toBe(403);
    expect(response.body).toEqual(forbidden);
  });

  it('lets admin_site do everything', async () => {
    const { api } = await withPermissions('admin_site');
    const created = await api.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Admin Made' });
    expect(created.status).toBe(201);
    expect(
      (
        await api.post(`/api/roles/${created.body.data.slug}/users`, {
          usernames: [tenant.ownerUser.username],
        })
      ).status,
    ).toBe(200);
  });

  it('checks permissions before looking anything up', async () => {
    const { api } = await withPermissions('view_site');
    expect((await api.post('/api/app/no-such-app/roles', { name: 'X' })).status).toBe(403);
  });
});

describe('tenancy', () => {
  let other: Tenant;

  beforeAll(async () => {
    other = await createTenant(platform);
  });

  it('does not show one site’s roles to another site', async () => {
    expect((await other.owner.get(`/api/roles/${siteRole}`)).status).toBe(404);
    expect((await other.owner.get(`/api/roles/${appRole}/users`)).status).toBe(404);
    expect((await other.owner.get(`/api/roles/${appRole}/descendants`)).status).toBe(404);
    const list = await other.owner.get('/api/roles/');
    expect(list.body.data.map((role: { slug: string }) => role.slug)).not.toContain(siteRole);
  });

  it('returns 404 for an app of another site', async () => {
    const response = await other.owner.get(`/api/app/${tenant.app.slug}/roles`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('app_not_found');
  });

  it('keeps memberships apart: an assignment in one site is invisible in another', async () => {
    const { user } = await createUser(platform);
    await tenant.owner.post('/api/assign/roles', { roles: [siteRole], usernames: [user.username] });
    const here = await tenant.owner.get(`/api/users/${user.username}/roles`);
    expect(here.body.data.site_roles).toEqual([{ name: 'Staff', slug: siteRole }]);
    const there = await other.owner.get(`/api/users/${user.username}/roles`);
    expect(there.body.data).toEqual({ app_roles: [], site_roles: [] });
  });

  it('reports another site’s role slug as not found in bulk requests', async () => {
    const response = await other.owner.post('/api/assign/roles', {
      roles: [siteRole],
      usernames: [other.ownerUser.username],
    });
    expect(response.body.data.failures).toEqual([
      { username: other.ownerUser.username, role: siteRole, error: 'Role not found' },
    ]);
  });

  it('lets two sites use the same role names and slugs independently', async () => {
    const here = await tenant.owner.post('/api/roles/', { name: 'Shared Name' });
    const there = await other.owner.post('/api/roles/', { name: 'Shared Name' });
    expect([here.status, there.status]).toEqual([201, 201]);
    await other.owner.delete('/api/roles/shared-name');
    expect((await tenant.owner.get('/api/roles/shared-name')).status).toBe(200);
  });

  it('returns 403 to the owner of another organization naming this site', async () => {
    const response = await other.owner.forSite(tenant.site.slug).get('/api/roles/');
    expect(response.status).toBe(403);
    expect(response.body).toEqual(forbidden);
  });

  it('returns 404 for an unknown site', async () => {
    const response = await tenant.owner.forSite('no-such-site').get('/api/roles/');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('site_not_found');
  });
});
