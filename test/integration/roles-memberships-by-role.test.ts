import { beforeEach, describe, expect, it } from 'vitest';
import { userMemberships } from '../../shared/roles/memberships';
import {
  advance,
  ann,
  appRole,
  bob,
  cid,
  inSeconds,
  owner,
  platform,
  rolesOf,
  setupMembershipFixture,
  siteRole,
  slugsOf,
  tenant,
  usernamesOf,
} from '../support/memberships-fixture';

/** Memberships seen from the roles: bulk assign and revoke, and the users of a role. */

setupMembershipFixture();

describe('POST /api/assign/roles', () => {
  it('assigns every role to every user and answers with a message only', async () => {
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole, siteRole],
      usernames: [ann.username, bob.username],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Roles assigned successfully' });
    for (const user of [ann, bob]) {
      const held = await rolesOf(user.username);
      expect(slugsOf(held.app_roles)).toEqual([appRole]);
      expect(slugsOf(held.site_roles)).toEqual([siteRole]);
    }
  });

  it('skips existing assignments and counts them as successes', async () => {
    await owner.post('/api/assign/roles', { roles: [appRole], usernames: [ann.username] });
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username, bob.username],
    });
    expect(response.body).toEqual({ message: 'Roles assigned successfully' });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users?ordering=username`))).toEqual([
      ann.username,
      bob.username,
    ]);
  });

  it('is idempotent when the same request runs twice at once', async () => {
    const body = { roles: [appRole, siteRole], usernames: [ann.username, bob.username, cid.username] };
    const responses = await Promise.all([
      owner.post('/api/assign/roles', body),
      owner.post('/api/assign/roles', body),
    ]);
    for (const response of responses)
      expect(response.body).toEqual({ message: 'Roles assigned successfully' });
    for (const role of [appRole, siteRole])
      expect((await owner.get(`/api/roles/${role}/users`)).body.total).toBe(3);
  });

  it('leaves an existing active assignment as it is, expiry included', async () => {
    await owner.post('/api/assign/roles', { roles: [appRole], usernames: [ann.username] });
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(60),
    });
    advance(120_000);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('applies expires_at to every pair', async () => {
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole, siteRole],
      usernames: [ann.username, bob.username],
      expires_at: inSeconds(60),
    });
    expect(response.status).toBe(200);
    advance(120_000);
    for (const role of [appRole, siteRole])
      expect((await owner.get(`/api/roles/${role}/users`)).body.total).toBe(0);
  });

  it('returns the partial form naming each failed pair with the exact error texts', async () => {
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole, 'ghost-role'],
      usernames: [ann.username, 'ghost-user'],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'partial_success',
      message: '1 of 4 assignments succeeded; 3 failed.',
      data: {
        failures: [
          { username: ann.username, role: 'ghost-role', error: 'Role not found' },
          { username: 'ghost-user', role: appRole, error: 'User not found' },
          { username: 'ghost-user', role: 'ghost-role', error: 'User not found' },
        ],
      },
    });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('accepts 100 roles and 100 usernames', async () => {
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole, ...Array.from({ length: 99 }, (_, i) => `ghost-${i}`)],
      usernames: [ann.username, ...Array.from({ length: 99 }, (_, i) => `nobody-${i}`)],
    });
    expect(response.status).toBe(200);
    expect(response.body.data.failures).toHaveLength(100 * 100 - 1);
  });

  it('returns 400 for no roles, no usernames, or more than 100 of either', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `x-${i}`);
    for (const body of [
      { roles: [], usernames: [ann.username] },
      { roles: [appRole], usernames: [] },
      { roles: many, usernames: [ann.username] },
      { roles: [appRole], usernames: many },
      { usernames: [ann.username] },
      { roles: [appRole] },
    ]) {
      const response = await owner.post('/api/assign/roles', body);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'Validation failed', code: 'validation_error' });
    }
  });

  it('returns 400 for an expires_at in the past and assigns nothing', async () => {
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(-60),
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'Validation failed',
      detail: 'expires_at: The expiry time must be in the future.',
      code: 'expires_at_in_past',
    });
    expect((await owner.get(`/api/roles/${appRole}/users`)).body.total).toBe(0);
  });

  it('returns 400 for an expires_at that is not a date-time', async () => {
    const response = await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: 'tomorrow',
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_error');
  });
});

describe('DELETE /api/revoke/roles', () => {
  it('revokes every role from every user and answers with a message only', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole, siteRole],
      usernames: [ann.username, bob.username],
    });
    const response = await owner.delete('/api/revoke/roles', {
      roles: [appRole, siteRole],
      usernames: [ann.username],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Roles revoked successfully' });
    expect(await rolesOf(ann.username)).toEqual({ app_roles: [], site_roles: [] });
    expect(slugsOf((await rolesOf(bob.username)).app_roles)).toEqual([appRole]);
  });

  it('skips missing assignments and counts them as successes', async () => {
    const response = await owner.delete('/api/revoke/roles', { roles: [appRole], usernames: [ann.username] });
    expect(response.body).toEqual({ message: 'Roles revoked successfully' });
  });

  it('returns the partial form for unknown users and roles', async () => {
    await owner.post('/api/assign/roles', { roles: [appRole], usernames: [ann.username] });
    const response = await owner.delete('/api/revoke/roles', {
      roles: [appRole, 'ghost-role'],
      usernames: [ann.username, 'ghost-user'],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'partial_success',
      message: '1 of 4 revocations succeeded; 3 failed.',
      data: {
        failures: [
          { username: ann.username, role: 'ghost-role', error: 'Role not found' },
          { username: 'ghost-user', role: appRole, error: 'User not found' },
          { username: 'ghost-user', role: 'ghost-role', error: 'User not found' },
        ],
      },
    });
    expect((await owner.get(`/api/roles/${appRole}/users`)).body.total).toBe(0);
  });

  it('returns 400 outside 1 to 100 roles and usernames', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `x-${i}`);
    for (const body of [
      { roles: [], usernames: [ann.username] },
      { roles: [appRole], usernames: [] },
      { roles: many, usernames: [ann.username] },
      { roles: [appRole], usernames: many },
      {},
    ]) {
      expect((await owner.delete('/api/revoke/roles', body)).status).toBe(400);
    }
  });
});

describe('GET /api/roles/{role_slug}/users', () => {
  beforeEach(async () => {
    for (const user of [ann, bob, cid]) {
      await owner.post('/api/assign/roles', { roles: [appRole], usernames: [user.username] });
    }
  });

  it('returns the list envelope with username, email, first_name, last_name and expires_at, newest first', async () => {
    const response = await owner.get(`/api/roles/${appRole}/users`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Role users retrieved successfully',
      data: [
        { username: cid.username, email: cid.email, first_name: 'Max', last_name: 'Moss', expires_at: null },
        { username: bob.username, email: bob.email, first_name: 'Zoe', last_name: 'Adams', expires_at: null },
        { username: ann.username, email: ann.email, first_name: 'Ann', last_name: 'Young', expires_at: null },
      ],
      total: 3,
    });
  });

  it("gives each holder's expiry (an addition: docs/api-decisions.md), expired ones with include_expired", async () => {
    const soon = inSeconds(60);
    await owner.patch(`/api/roles/${appRole}/users`, { usernames: [ann.username], expires_at: soon });
    const expiries = async (query = '') =>
      Object.fromEntries(
        (await owner.get(`/api/roles/${appRole}/users?ordering=username${query}`)).body.data.map(
          (holder: { username: string; expires_at: string | null }) => [holder.username, holder.expires_at],
        ),
      );
    expect(await expiries()).toEqual({ [ann.username]: soon, [bob.username]: null, [cid.username]: null });
    advance(120_000);
    expect(await expiries()).toEqual({ [bob.username]: null, [cid.username]: null });
    expect(await expiries('&include_expired=true')).toEqual({
      [ann.username]: soon,
      [bob.username]: null,
      [cid.username]: null,
    });
  });

  it('orders by username, email, first_name and last_name, descending with -', async () => {
    const order = async (ordering: string) =>
      usernamesOf(await owner.get(`/api/roles/${appRole}/users?ordering=${ordering}`));
    expect(await order('username')).toEqual([ann.username, bob.username, cid.username]);
    expect(await order('-username')).toEqual([cid.username, bob.username, ann.username]);
    expect(await order('email')).toEqual([bob.username, cid.username, ann.username]);
    expect(await order('first_name')).toEqual([ann.username, cid.username, bob.username]);
    expect(await order('last_name')).toEqual([bob.username, cid.username, ann.username]);
    expect(await order('created_at')).toEqual([ann.username, bob.username, cid.username]);
  });

  it('searches username or e-mail partially and filters by exact username', async () => {
    expect(
      usernamesOf(
        await owner.get(`/api/roles/${appRole}/users?search=${bob.username.slice(0, 4).toUpperCase()}`),
      ),
    ).toEqual([bob.username]);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users?search=zz-ann`))).toEqual([ann.username]);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users?username=${cid.username}`))).toEqual([
      cid.username,
    ]);
    expect(
      (await owner.get(`/api/roles/${appRole}/users?username=${cid.username.slice(0, 5)}`)).body.total,
    ).toBe(0);
  });

  it('pages when page_size is given', async () => {
    const response = await owner.get(`/api/roles/${appRole}/users?ordering=username&page=2&page_size=2`);
    expect(response.body.total).toBe(3);
    expect(usernamesOf(response)).toEqual([cid.username]);
  });

  it('lists the holders of a site role', async () => {
    await owner.post(`/api/roles/${siteRole}/users`, { usernames: [bob.username] });
    expect(usernamesOf(await owner.get(`/api/roles/${siteRole}/users`))).toEqual([bob.username]);
  });

  it('returns 404 for an unknown role', async () => {
    const response = await owner.get('/api/roles/ghost/users');
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('role_not_found');
  });

  it('returns 400 for an unknown ordering', async () => {
    expect((await owner.get(`/api/roles/${appRole}/users?ordering=password`)).status).toBe(400);
  });
});

describe('POST /api/roles/{role_slug}/users', () => {
  it('assigns the role and skips users who already hold it', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    const response = await owner.post(`/api/roles/${appRole}/users`, {
      usernames: [ann.username, bob.username],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Users assigned to the role successfully',
      detail: `Assigned "${appRole}" to 1 user; 1 user already held it.`,
    });
    expect((await owner.get(`/api/roles/${appRole}/users`)).body.total).toBe(2);
  });

  it('returns 404 naming unknown users and assigns nothing', async () => {
    const response = await owner.post(`/api/roles/${appRole}/users`, {
      usernames: [ann.username, 'ghost-user'],
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'User not found',
      detail: 'No user with the username "ghost-user" exists.',
      code: 'user_not_found',
    });
    expect((await owner.get(`/api/roles/${appRole}/users`)).body.total).toBe(0);
  });

  it('returns 404 for an unknown role', async () => {
    const response = await owner.post('/api/roles/ghost/users', { usernames: [ann.username] });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'Role not found',
      detail: 'No role with the slug "ghost" exists in this site.',
      code: 'role_not_found',
    });
  });

  it('records who assigned the role, by id only (docs/lifecycle.md: a name outlives no erasure)', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    const [membership] = await userMemberships(platform.deps.store, tenant.site.slug, ann.id);
    expect(membership).toMatchObject({ assigned_by: tenant.ownerUser.id });
    expect(membership).not.toHaveProperty('assigned_by_username');
  });
});

describe('PUT /api/roles/{role_slug}/users', () => {
  it('replaces the holders: only the given users remain', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username, bob.username] });
    const response = await owner.put(`/api/roles/${appRole}/users`, {
      usernames: [bob.username, cid.username],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Role users replaced successfully',
      detail: `"${appRole}" is now held by 2 users: 1 added, 1 kept, 1 removed.`,
    });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users?ordering=username`))).toEqual([
      bob.username,
      cid.username,
    ]);
  });

  it('removes every holder with an empty list', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    await owner.put(`/api/roles/${appRole}/users`, { usernames: [] });
    expect((await owner.get(`/api/roles/${appRole}/users?include_expired=true`)).body.total).toBe(0);
  });

  it('returns 404 naming unknown users and changes nothing', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    const response = await owner.put(`/api/roles/${appRole}/users`, { usernames: ['ghost-user'] });
    expect(response.status).toBe(404);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });
});

describe('PATCH /api/roles/{role_slug}/users', () => {
  it('sets a new expiry on the memberships', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username, bob.username] });
    const expiresAt = inSeconds(60);
    const response = await owner.patch(`/api/roles/${appRole}/users`, {
      usernames: [ann.username],
      expires_at: expiresAt,
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Role memberships updated successfully',
      detail: `The membership of 1 user in "${appRole}" now expires at ${expiresAt}.`,
    });
    advance(120_000);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([bob.username]);
  });

  it('makes a membership permanent with null', async () => {
    await owner.post('/api/assign/roles', {
      roles: [appRole],
      usernames: [ann.username],
      expires_at: inSeconds(60),
    });
    const response = await owner.patch(`/api/roles/${appRole}/users`, {
      usernames: [ann.username],
      expires_at: null,
    });
    expect(response.body.detail).toBe(`The membership of 1 user in "${appRole}" now never expires.`);
    advance(120_000);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });

  it('returns 400 for an expiry in the past', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    const response = await owner.patch(`/api/roles/${appRole}/users`, {
      usernames: [ann.username],
      expires_at: inSeconds(-1),
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('expires_at_in_past');
  });

  it('returns 400 without expires_at', async () => {
    const response = await owner.patch(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('expires_at: This field is required.');
  });

  it('returns 404 naming users without a membership and changes nothing', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    const response = await owner.patch(`/api/roles/${appRole}/users`, {
      usernames: [ann.username, bob.username],
      expires_at: inSeconds(60),
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'Membership not found',
      detail: `The role "${appRole}" is not assigned to "${bob.username}".`,
      code: 'membership_not_found',
    });
    advance(120_000);
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([ann.username]);
  });
});

describe('DELETE /api/roles/{role_slug}/users', () => {
  it('removes the role and skips users who do not hold it', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username, bob.username] });
    const response = await owner.delete(`/api/roles/${appRole}/users`, {
      usernames: [ann.username, cid.username],
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Users removed from the role successfully',
      detail: `Removed "${appRole}" from 1 user; 1 user did not hold it.`,
    });
    expect(usernamesOf(await owner.get(`/api/roles/${appRole}/users`))).toEqual([bob.username]);
  });

  it('returns 400 for an empty list of usernames', async () => {
    const response = await owner.delete(`/api/roles/${appRole}/users`, { usernames: [] });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('usernames: Ensure this field has at least 1 items.');
  });

  it('returns 404 for an unknown user', async () => {
    expect((await owner.delete(`/api/roles/${appRole}/users`, { usernames: ['ghost-user'] })).status).toBe(
      404,
    );
  });
});
