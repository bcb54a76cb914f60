import { beforeEach, describe, expect, it } from 'vitest';
import {
  advance,
  ann,
  appRole,
  bob,
  cid,
  inSeconds,
  otherAppRole,
  owner,
  rolesOf,
  setupMembershipFixture,
  siteRole,
  slugsOf,
  tenant,
  usernamesOf,
} from '../support/memberships-fixture';

/** Memberships seen from the users (their roles, `me`), and membership states (expiry). */

setupMembershipFixture();

describe('GET /api/users/{username}/roles', () => {
  beforeEach(async () => {
    await owner.post('/api/assign/roles', { roles: [appRole], usernames: [ann.username] });
    await owner.post('/api/assign/roles', { roles: [siteRole], usernames: [ann.username] });
    await owner.post('/api/assign/roles', { roles: [otherAppRole], usernames: [ann.username] });
  });

  it('returns the app and site roles of the user as {name, slug}, newest first', async () => {
    const response = await owner.get(`/api/users/${ann.username}/roles`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'User roles retrieved successfully',
      data: {
        app_roles: [
          { name: 'Payer', slug: otherAppRole },
          { name: 'Editor', slug: appRole },
        ],
        site_roles: [{ name: 'Staff', slug: siteRole }],
      },
    });
  });

  it('orders by name and created_at', async () => {
    expect(slugsOf((await rolesOf(ann.username, '?ordering=name')).app_roles)).toEqual([
      appRole,
      otherAppRole,
    ]);
    expect(slugsOf((await rolesOf(ann.username, '?ordering=created_at')).app_roles)).toEqual([
      appRole,
      otherAppRole,
    ]);
  });

  it('filters by app: its application roles and the site roles bundling one of them', async () => {
    expect(await rolesOf(ann.username, `?app=${tenant.app.slug}`)).toEqual({
      app_roles: [{ name: 'Editor', slug: appRole }],
      site_roles: [{ name: 'Staff', slug: siteRole }],
    });
    const billing = await rolesOf(ann.username, `?app=${otherAppRole.replace(/-payer$/, '')}`);
    expect(billing).toEqual({ app_roles: [{ name: 'Payer', slug: otherAppRole }], site_roles: [] });
  });

  it('filters by membership_type and searches role names', async () => {
    expect(await rolesOf(ann.username, '?membership_type=site_role')).toEqual({
      app_roles: [],
      site_roles: [{ name: 'Staff', slug: siteRole }],
    });
    expect((await rolesOf(ann.username, '?membership_type=app_role')).site_roles).toEqual([]);
    expect(await rolesOf(ann.username, '?search=PAY')).toEqual({
      app_roles: [{ name: 'Payer', slug: otherAppRole }],
      site_roles: [],
    });
  });

  it('returns 400 for an unknown membership_type', async () => {
    expect((await owner.get(`/api/users/${ann.username}/roles?membership_type=group`)).status).toBe(400);
  });

  it('returns 404 for an unknown user', async () => {
    const response = await owner.get('/api/users/ghost-user/roles');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('user_not_found');
  });

  it('answers for the signed-in user with me', async () => {
    await owner.post('/api/assign/roles', { roles: [siteRole], usernames: [tenant.ownerUser.username] });
    expect(await rolesOf('me')).toEqual({ app_roles: [], site_roles: [{ name: 'Staff', slug: siteRole }] });
  });
});

describe('POST /api/users/{username}/roles', () => {
  it('assigns the roles and skips the ones already held', async () => {
    await owner.post(`/api/users/${ann.username}/roles`, { role_slugs: [appRole] });
    const response = await owner.post(`/api/users/${ann.username}/roles`, {
      role_slugs: [appRole, siteRole],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Roles assigned to the user successfully',
      detail: `Assigned 1 role to "${ann.username}"; 1 role already held.`,
    });
    const held = await rolesOf(ann.username);
    expect([...slugsOf(held.app_roles), ...slugsOf(held.site_roles)]).toEqual([appRole, siteRole]);
  });

  it('assigns to the signed-in user with me', async () => {
    const response = await owner.post('/api/users/me/roles', { role_slugs: [appRole] });
    expect(response.body.detail).toBe(
      `Assigned 1 role to "${tenant.ownerUser.username}"; 0 roles already held.`,
    );
    expect(slugsOf((await rolesOf('me')).app_roles)).toEqual([appRole]);
  });

  it('applies expires_at', async () => {
    await owner.post(`/api/users/${ann.username}/roles`, {
      role_slugs: [appRole],
      expires_at: inSeconds(60),
    });
    advance(120_000);
    expect(await rolesOf(ann.username)).toEqual({ app_roles: [], site_roles: [] });
  });

  it('returns 404 naming unknown roles and assigns nothing', async () => {
    const response = await owner.post(`/api/users/${ann.username}/roles`, {
      role_slugs: [appRole, 'ghost-a', 'ghost-b'],
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'Role not found',
      detail: 'No roles with the slugs "ghost-a", "ghost-b" exist in this site.',
      code: 'role_not_found',
    });
    expect((await rolesOf(ann.username)).app_roles).toEqual([]);
  });

  it('returns 400 for an expiry in the past', async () => {
    const response = await owner.post(`/api/users/${ann.username}/roles`, {
      role_slugs: [appRole],
      expires_at: inSeconds(-5),
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('expires_at_in_past');
  });

  it('returns 400 without role_slugs', async () => {
    expect((await owner.post(`/api/users/${ann.username}/roles`, {})).status).toBe(400);
  });

  it('returns 404 for an unknown user', async () => {
    expect((await owner.post('/api/users/ghost-user/roles', { role_slugs: [appRole] })).status).toBe(404);
  });
});

describe('DELETE /api/users/{username}/roles', () => {
  it('removes the roles and skips the ones not held', async () => {
    await owner.post(`/api/users/${ann.username}/roles`, { role_slugs: [appRole, siteRole] });
    const response = await owner.delete(`/api/users/${ann.username}/roles`, {
      role_slugs: [appRole, otherAppRole],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Roles removed from the user successfully',
      detail: `Removed 1 role from "${ann.username}"; 1 role not held.`,
    });
    expect(await rolesOf(ann.username)).toEqual({
      app_roles: [],
      site_roles: [{ name: 'Staff', slug: siteRole }],
    });
  });

  it('removes from the signed-in user with me', async () => {
    await owner.post('/api/users/me/roles', { role_slugs: [appRole] });
    await owner.delete('/api/users/me/roles', { role_slugs: [appRole] });
    expect((await rolesOf('me')).app_roles).toEqual([]);
  });

  it('returns 400 for an empty role_slugs', async () => {
    expect((await owner.delete(`/api/users/${ann.username}/roles`, { role_slugs: [] })).status).toBe(400);
  });

  it('returns 404 for an unknown role', async () => {
    expect((await owner.delete(`/api/users/${ann.username}/roles`, { role_slugs: ['ghost'] })).status).toBe(
      404,
    );
  });
});

describe('membership states', () => {
  it('(none) → active: an assignment counts at once', async () => {
    await owner.post('/api/assign/roles', { roles: [appRole], usernames: [ann.username] });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('active → expired: an expired membership is hidden, and shown with include_expired=true', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(60),
    });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
    advance(120_000);
    expect((await owner.get(`/api/roles/${appRole}/users`)).body).toMatchObject({ data: [], total: 0 });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users?include_expired=true`))).toEqual([
      ann.username,
    ]);
    expect((await rolesOf(ann.username)).app_roles).toEqual([]);
    expect(slugsOf((await rolesOf(ann.username, '?include_expired=true')).app_roles)).toEqual([appRole]);
  });

  it('expired → active: PATCH with a future expiry reactivates', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(60),
    });
    advance(120_000);
    await owner.patch(`/api/roles/${appRole}/users`, {
      usernames: [ann.username],
      expires_at: inSeconds(3600),
    });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('expired → active: PATCH with null reactivates for good', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(60),
    });
    advance(120_000);
    await owner.patch(`/api/roles/${appRole}/users`, { usernames: [ann.username], expires_at: null });
    advance(24 * 3600_000);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('expired → active: assigning again replaces an expired membership', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(60),
    });
    advance(120_000);
    await owner.post('/api/assign/roles', { roles: [appRole], usernames: [ann.username] });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('active or expired → removed: revoke, remove and replace delete the membership for good', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username, bob.username, cid.username],
    });
    await owner.patch(`/api/roles/${appRole}/users`, {
      usernames: [bob.username],
      expires_at: inSeconds(60),
    });
    advance(120_000);
    await owner.delete('/api/revoke/roles', { roles: [appRole], usernames: [ann.username] });
    await owner.delete(`/api/roles/${appRole}/users`, { usernames: [bob.username] });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users?include_expired=true`))).toEqual([
      cid.username,
    ]);
    await owner.put(`/api/roles/${appRole}/users`, { usernames: [] });
    expect((await owner.get(`/api/roles/${appRole}/users?include_expired=true`)).body.total).toBe(0);
  });

  it('active → removed: deleting the site role removes its memberships', async () => {
    await owner.post('/api/assign/roles', { roles: [siteRole], usernames: [ann.username] });
    await owner.delete(`/api/roles/${siteRole}`);
    expect((await rolesOf(ann.username, '?include_expired=true')).site_roles).toEqual([]);
  });
});
