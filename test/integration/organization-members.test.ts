import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

const members = (tenant: Tenant) => `/api/cloud/organizations/${tenant.organization.slug}/members/`;
const transfer = (tenant: Tenant) =>
  `/api/cloud/organizations/${tenant.organization.slug}/transfer-ownership/`;

/** A tenant with an admin and a plain member, each signed in. */
async function team() {
  const tenant = await createTenant(platform);
  const admin = await createUser(platform);
  const member = await createUser(platform);
  for (const [user, role] of [
    [admin.user, 'admin'],
    [member.user, 'member'],
  ] as const) {
    const added = await platform.adminApi.post(members(tenant), { user_id: user.id, role });
    expect(added.status).toBe(200);
  }
  return { tenant, admin, member };
}

async function roleOf(api: ApiClient, tenant: Tenant): Promise<string | null> {
  return (await api.get(`/api/cloud/organizations/${tenant.organization.slug}/`)).body.role;
}

describe('the owner of an organization', () => {
  it('cannot be demoted by an admin', async () => {
    const { tenant, admin } = await team();
    const response = await admin.api.post(members(tenant), { user_id: tenant.ownerUser.id, role: 'member' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ detail: 'You do not have permission to perform this action.' });
    expect(await roleOf(tenant.owner, tenant)).toBe('owner');
  });

  it('cannot be demoted through the members endpoint by the owner or a superuser either: the organization keeps its owner', async () => {
    const { tenant } = await team();
    for (const api of [tenant.owner, platform.adminApi]) {
      const response = await api.post(members(tenant), { user_id: tenant.ownerUser.id, role: 'admin' });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(['role']);
    }
    expect(await roleOf(tenant.owner, tenant)).toBe('owner');
  });

  it('is not made through the members endpoint: an admin gets 403, the owner 400', async () => {
    const { tenant, admin, member } = await team();
    expect((await admin.api.post(members(tenant), { user_id: member.user.id, role: 'owner' })).status).toBe(
      403,
    );
    const byOwner = await tenant.owner.post(members(tenant), { user_id: member.user.id, role: 'owner' });
    expect(byOwner.status).toBe(400);
    expect(Object.keys(byOwner.body)).toEqual(['role']);
    expect(await roleOf(member.api, tenant)).toBe('member');
  });

  it('lets admins change the roles of other members', async () => {
    const { tenant, admin, member } = await team();
    const response = await admin.api.post(members(tenant), { user_id: member.user.id, role: 'admin' });
    expect(response.status).toBe(200);
    expect(await roleOf(member.api, tenant)).toBe('admin');
  });
});

describe('POST /api/cloud/organizations/{org_slug}/transfer-ownership/', () => {
  it('makes a member the owner and the previous owner an admin', async () => {
    const { tenant, member } = await team();
    const response = await tenant.owner.post(transfer(tenant), { user_id: member.user.id });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      slug: tenant.organization.slug,
      owner_id: member.user.id,
      role: 'admin',
    });
    expect(await roleOf(member.api, tenant)).toBe('owner');
    expect(await roleOf(tenant.owner, tenant)).toBe('admin');
    // The new owner can hand it back; the previous one no longer can.
    expect((await tenant.owner.post(transfer(tenant), { user_id: tenant.ownerUser.id })).status).toBe(403);
    expect((await member.api.post(transfer(tenant), { user_id: tenant.ownerUser.id })).status).toBe(200);
  });

  it('is refused to admins and plain members', async () => {
    const { tenant, admin, member } = await team();
    expect((await admin.api.post(transfer(tenant), { user_id: admin.user.id })).status).toBe(403);
    expect((await member.api.post(transfer(tenant), { user_id: member.user.id })).status).toBe(403);
    expect(await roleOf(tenant.owner, tenant)).toBe('owner');
  });

  it('is allowed to a superuser', async () => {
    const { tenant, admin } = await team();
    const response = await platform.adminApi.post(transfer(tenant), { user_id: admin.user.id });
    expect(response.status).toBe(200);
    expect(await roleOf(admin.api, tenant)).toBe('owner');
  });

  it('returns 400 naming user_id for a user outside the organization, or the owner itself', async () => {
    const { tenant } = await team();
    const outsider = await createUser(platform);
    for (const userId of [outsider.user.id, tenant.ownerUser.id, 999_999]) {
      const response = await tenant.owner.post(transfer(tenant), { user_id: userId });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(['user_id']);
    }
  });
});

describe('adding members', () => {
  it('does not let an owner pull an outside account in, and answers as for an unknown user', async () => {
    const tenant = await createTenant(platform);
    const outsider = await createUser(platform);
    const tries = [
      { user_id: outsider.user.id },
      { username: outsider.user.username },
      { email: outsider.user.email },
      { username: 'admin' },
      { user_id: 1 },
    ];
    const unknown = await tenant.owner.post(members(tenant), { username: unique('ghost') });
    expect(unknown.status).toBe(400);
    for (const body of tries) {
      const response = await tenant.owner.post(members(tenant), body);
      expect(response.status).toBe(unknown.status);
      expect(response.body).toEqual(unknown.body);
      expect(response.text).not.toContain('@');
    }
    const list = await tenant.owner.get(members(tenant));
    expect(list.body.count).toBe(1);
  });

  it('does not let an owner create users, whether the e-mail is taken or not', async () => {
    const tenant = await createTenant(platform);
    const taken = await createUser(platform);
    const fresh = await tenant.owner.post(members(tenant), {
      email: `${unique('new')}@example.com`,
      password: 'Lantern-Fjord-Mosaic-3',
    });
    const existing = await tenant.owner.post(members(tenant), {
      email: taken.user.email,
      password: 'Lantern-Fjord-Mosaic-3',
    });
    expect(fresh.status).toBe(403);
    expect(existing.status).toBe(403);
    expect(existing.body).toEqual(fresh.body);
  });

  it('lets a superuser add an existing account and create a new one', async () => {
    const tenant = await createTenant(platform);
    const outsider = await createUser(platform);
    expect((await platform.adminApi.post(members(tenant), { username: outsider.user.username })).status).toBe(
      200,
    );
    const created = await platform.adminApi.post(members(tenant), {
      email: `${unique('new')}@example.com`,
      password: 'Lantern-Fjord-Mosaic-3',
    });
    expect(created.status).toBe(201);
  });
});

describe('the member list', () => {
  const privateFields = ['email', 'uuid', 'is_superuser', 'last_login', 'is_active', 'date_joined'];

  it('shows plain members only names of the other members', async () => {
    const { tenant, member } = await team();
    const response = await member.api.get(members(tenant));
    expect(response.status).toBe(200);
    for (const row of response.body.results) {
      expect(Object.keys(row.user).sort()).toEqual(['first_name', 'id', 'last_name', 'username']);
    }
    for (const field of privateFields) expect(response.text).not.toContain(`"${field}"`);
  });

  it('shows owners and admins the contact and status fields, but not platform flags', async () => {
    const { tenant, admin } = await team();
    const response = await admin.api.get(members(tenant));
    for (const row of response.body.results) {
      expect(Object.keys(row.user).sort()).toEqual(
        [
          'date_joined',
          'email',
          'first_name',
          'id',
          'is_active',
          'last_login',
          'last_name',
          'username',
        ].sort(),
      );
    }
  });

  it('shows superusers every public field', async () => {
    const { tenant } = await team();
    const response = await platform.adminApi.get(members(tenant));
    expect(response.body.results[0].user).toHaveProperty('is_superuser');
    expect(response.body.results[0].user).toHaveProperty('uuid');
    expect(response.text).not.toContain('token_version');
  });
});

describe('GET /api/cloud/users/me/', () => {
  it('never shows the token version', async () => {
    const response = await platform.adminApi.get('/api/cloud/users/me/');
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('token_version');
  });
});
