import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userMemberships } from '../../shared/roles/memberships';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

/** A clock that runs with real time, never repeats an instant, and can be moved ahead. */
let offset = 0;
let last = 0;
const clock = () => {
  last = Math.max(Date.now() + offset, last + 1);
  return new Date(last);
};
const advance = (ms: number) => {
  offset += ms;
};
const inSeconds = (seconds: number) => new Date(clock().getTime() + seconds * 1000).toISOString();

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;
let appRole: string;
let otherAppRole: string;
let siteRole: string;
/** Three users whose fields sort differently by each field. */
type Person = { id: number; username: string; email: string };
let ann: Person;
let bob: Person;
let cid: Person;

beforeAll(async () => {
  // Access tokens outlive the time this file moves the clock ahead.
  platform = await startTestPlatform({ ACCESS_TOKEN_SECONDS: String(30 * 24 * 3600) }, { clock });
  const tag = unique('m');
  ann = (
    await createUser(platform, {
      username: `ann-${tag}`,
      email: `zz-ann-${tag}@example.com`,
      first_name: 'Ann',
      last_name: 'Young',
    })
  ).user;
  bob = (
    await createUser(platform, {
      username: `bob-${tag}`,
      email: `aa-bob-${tag}@example.com`,
      first_name: 'Zoe',
      last_name: 'Adams',
    })
  ).user;
  cid = (
    await createUser(platform, {
      username: `cid-${tag}`,
      email: `mm-cid-${tag}@example.com`,
      first_name: 'Max',
      last_name: 'Moss',
    })
  ).user;
});
afterAll(async () => {
  await platform.stop();
});
beforeEach(async () => {
  tenant = await createTenant(platform);
  owner = tenant.owner;
  appRole = (await owner.post(`/api/app/${tenant.app.slug}/roles`, { name: 'Editor' })).body.data.slug;
  const other = await owner.post('/api/apps/', { name: 'Billing' });
  otherAppRole = (await owner.post(`/api/app/${other.body.slug}/roles`, { name: 'Payer' })).body.data.slug;
  siteRole = (await owner.post('/api/roles/', { name: 'Staff', role_slugs: [appRole] })).body.data.slug;
});

const usernamesOf = (response: { body: { data: { username: string }[] } }) =>
  response.body.data.map((user) => user.username);
const slugsOf = (refs: { slug: string }[]) => refs.map((ref) => ref.slug);
const rolesOf = async (username: string, query = '') =>
  (await owner.get(`/api/users/${username}/roles${query}`)).body.data as {
    app_roles: { name: string; slug: string }[];
    site_roles: { name: string; slug: string }[];
  };

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

  it('returns the list envelope with username, email, first_name and last_name, newest first', async () => {
    const response = await owner.get(`/api/roles/${appRole}/users`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      message: 'Role users retrieved successfully',
      data: [
        { username: cid.username, email: cid.email, first_name: 'Max', last_name: 'Moss' },
        { username: bob.username, email: bob.email, first_name: 'Zoe', last_name: 'Adams' },
        { username: ann.username, email: ann.email, first_name: 'Ann', last_name: 'Young' },
      ],
      total: 3,
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

  it('records who assigned the role', async () => {
    await owner.post(`/api/roles/${appRole}/users`, { usernames: [ann.username] });
    const [membership] = await userMemberships(platform.deps.store, tenant.site.slug, ann.id);
    expect(membership).toMatchObject({
      assigned_by: tenant.ownerUser.id,
      assigned_by_username: tenant.ownerUser.username,
    });
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
