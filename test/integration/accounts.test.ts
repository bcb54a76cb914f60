import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

describe('from an empty install to a second user, with plain HTTP calls', () => {
  it('creates an organization, a site, an app and a member who can use the site', async () => {
    const { api: owner } = await createUser(platform, { username: unique('owner') });
    const organization = await owner.post('/api/cloud/organizations/', { name: 'Acme Corp' });
    expect(organization.status).toBe(201);
    expect(organization.body).toMatchObject({ name: 'Acme Corp', slug: 'acme-corp' });

    const site = await owner.post('/api/cloud/organizations/acme-corp/sites/', { name: 'Acme Shop' });
    expect(site.status).toBe(201);
    expect(site.body).toMatchObject({ slug: 'acme-shop', organization_slug: 'acme-corp' });

    const app = await owner.forSite('acme-shop').post('/api/apps/', { name: 'Storefront' });
    expect(app.status).toBe(201);
    expect(app.body).toMatchObject({ slug: 'storefront', site: 'acme-shop', description: '' });

    // Accounts are created by superusers (owners will invite people).
    const member = await platform.adminApi.post('/api/cloud/organizations/acme-corp/members/', {
      email: 'second@example.com',
      username: 'second',
      password: 'Second-Lantern-Fjord-8',
      first_name: 'Sec',
      last_name: 'Ond',
    });
    expect(member.status).toBe(201);
    expect(member.body).toMatchObject({
      role: 'member',
      user: { username: 'second', email: 'second@example.com' },
    });

    const grant = await owner.put(
      `/api/cloud/organizations/acme-corp/sites/acme-shop/permissions/${member.body.user.id}/`,
      {
        permissions: ['access_site', 'view_site'],
      },
    );
    expect(grant.status).toBe(200);
    expect(grant.body.permissions).toEqual(['access_site', 'view_site']);

    const second = (await platform.api.login('second', 'Second-Lantern-Fjord-8')).forSite('acme-shop');
    const apps = await second.get('/api/apps/');
    expect(apps.status).toBe(200);
    expect(apps.body.results.map((a: { slug: string }) => a.slug)).toEqual(['storefront']);
    const refused = await second.post('/api/apps/', { name: 'Other' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: 'You do not have permission to perform this action.' });
  });
});

describe('POST /api/cloud/users/', () => {
  it('returns 403 for a user who is not a superuser', async () => {
    const { api } = await createUser(platform);
    const response = await api.post('/api/cloud/users/', {
      email: 'x@example.com',
      password: 'Lantern-Fjord-Mosaic-3',
    });
    expect(response.status).toBe(403);
  });

  it('returns 400 naming the field when the username or e-mail is taken, whatever its case', async () => {
    const { user } = await createUser(platform);
    const response = await platform.adminApi.post('/api/cloud/users/', {
      email: user.email.toUpperCase(),
      username: user.username.toUpperCase(),
      password: 'Lantern-Fjord-Mosaic-3',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      username: ['A user with that username already exists.'],
      email: ['A user with that email already exists.'],
    });
  });

  it('returns 400 for an invalid e-mail and a short password', async () => {
    const response = await platform.adminApi.post('/api/cloud/users/', {
      email: 'not-an-email',
      password: 'short',
    });
    expect(response.status).toBe(400);
    expect(response.body.email).toEqual(['Must be a valid email.']);
    expect(response.body.password).toEqual(['Ensure this field has at least 10 characters.']);
  });

  it('never returns the password hash', async () => {
    const response = await platform.adminApi.post('/api/cloud/users/', {
      email: `${unique('u')}@example.com`,
      password: 'Lantern-Fjord-Mosaic-3',
    });
    expect(response.status).toBe(201);
    expect(response.text).not.toContain('password');
    expect(response.text).not.toContain('scrypt');
  });
});

describe('GET /api/cloud/users/{user_id}/', () => {
  it('returns 404 for another user when the caller is not a superuser', async () => {
    const { api } = await createUser(platform);
    const response = await api.get('/api/cloud/users/1/');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not found.' });
  });

  it('returns 400 for an id that is not an integer', async () => {
    const response = await platform.adminApi.get('/api/cloud/users/abc/');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ user_id: ['Must be of type integer.'] });
  });
});

describe('PATCH /api/cloud/users/{user_id}/', () => {
  it('lets users change their own password, with the current one, but not their flags', async () => {
    const { user, api, password } = await createUser(platform);
    const change = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: 'Copper-Nebula-Thistle-5',
    });
    expect(change.status).toBe(200);
    const again = await platform.api.login(user.username, 'Copper-Nebula-Thistle-5');
    expect((await again.patch(`/api/cloud/users/${user.id}/`, { is_superuser: true })).status).toBe(403);
  });
});

describe('organizations', () => {
  it('lists only the organizations the user belongs to', async () => {
    const tenant = await createTenant(platform);
    await createTenant(platform);
    const response = await tenant.owner.get('/api/cloud/organizations/');
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(1);
    expect(response.body.results[0].slug).toBe(tenant.organization.slug);
    expect(response.body).toMatchObject({ next: null, previous: null });
  });

  it('returns 404 for an organization the user is not a member of', async () => {
    const tenant = await createTenant(platform);
    const { api } = await createUser(platform);
    const response = await api.get(`/api/cloud/organizations/${tenant.organization.slug}/`);
    expect(response.status).toBe(404);
  });

  it('returns 409 when the slug is taken', async () => {
    const tenant = await createTenant(platform);
    const response = await tenant.owner.post('/api/cloud/organizations/', {
      name: 'Anything',
      slug: tenant.organization.slug,
    });
    expect(response.status).toBe(409);
  });

  it('refuses site creation by a plain member', async () => {
    const tenant = await createTenant(platform);
    const { user, api } = await createUser(platform);
    await grantSite(tenant, user.id, ['access_site']);
    const response = await api.post(`/api/cloud/organizations/${tenant.organization.slug}/sites/`, {
      name: 'X',
    });
    expect(response.status).toBe(403);
  });

  it('refuses site permissions for a user outside the organization', async () => {
    const tenant = await createTenant(platform);
    const { user } = await createUser(platform);
    const response = await tenant.owner.put(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/${user.id}/`,
      { permissions: ['view_site'] },
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ user_id: ['The user is not a member of this organization.'] });
  });

  it('returns 400 naming an unknown permission', async () => {
    const tenant = await createTenant(platform);
    const response = await tenant.owner.put(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/${tenant.ownerUser.id}/`,
      { permissions: ['fly'] },
    );
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['permissions.0']);
  });

  it('paginates members with page and page_size', async () => {
    const tenant = await createTenant(platform);
    for (let i = 0; i < 2; i++) {
      const { user } = await createUser(platform);
      await grantSite(tenant, user.id, ['access_site']);
    }
    const response = await tenant.owner.get(
      `/api/cloud/organizations/${tenant.organization.slug}/members/?page=2&page_size=2`,
    );
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(3);
    expect(response.body.results).toHaveLength(1);
    expect(response.body.next).toBeNull();
    expect(response.body.previous).toContain('page=1');
  });
});

describe('tenancy', () => {
  it('returns 404 for an unknown site', async () => {
    const response = await platform.adminApi.forSite('no-such-site').get('/api/apps/');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Site not found.' });
  });

  it('returns 400 when no site is named and none is configured', async () => {
    const response = await platform.adminApi.get('/api/apps/');
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain('X-Site');
  });

  it('returns 403 to a signed-in user who holds nothing on the site', async () => {
    const tenant = await createTenant(platform);
    const { api } = await createUser(platform, {}, tenant.site.slug);
    const response = await api.get('/api/apps/');
    expect(response.status).toBe(403);
  });

  it("never shows one site's apps to another site", async () => {
    const first = await createTenant(platform);
    const second = await createTenant(platform);
    const response = await first.owner.forSite(second.site.slug).get('/api/apps/');
    expect(response.status).toBe(403);
    const own = await first.owner.get(`/api/apps/${second.app.slug}/`);
    expect(own.status).toBe(404);
  });

  it('lets a superuser use any site', async () => {
    const tenant = await createTenant(platform);
    const response = await platform.adminApi.forSite(tenant.site.slug).get(`/api/apps/${tenant.app.slug}`);
    expect(response.status).toBe(200);
    expect(response.body.slug).toBe(tenant.app.slug);
  });
});

describe('routing', () => {
  it('returns 404 for an unknown path', async () => {
    const response = await platform.api.get('/api/nothing-here/');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not found.' });
  });

  it('returns 405 with Allow for a known path and another method', async () => {
    const response = await platform.api.delete('/api/auth/jwt/token/');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('serves paths with and without their trailing slash', async () => {
    expect((await platform.adminApi.get('/api/cloud/users/me')).status).toBe(200);
    expect((await platform.adminApi.get('/api/cloud/users/me/')).status).toBe(200);
  });

  it('sends a request id with every response', async () => {
    const response = await platform.api.get('/api/nothing-here/');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
