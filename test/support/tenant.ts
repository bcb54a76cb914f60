import { randomBytes } from 'node:crypto';
import type { ApiClient } from './client';
import type { TestPlatform } from './platform';

export interface Tenant {
  organization: { id: number; slug: string };
  site: { id: number; slug: string };
  app: { id: number; slug: string; name: string };
  /** The organization owner, signed in, with requests naming the site. */
  owner: ApiClient;
  ownerUser: { id: number; username: string };
  /** The platform's superuser: adding an existing account to an organization is for superusers. */
  admin: ApiClient;
}

export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Creates a user through the admin API and signs it in; the client names `site` when given. */
export async function createUser(
  platform: TestPlatform,
  fields: {
    username?: string;
    email?: string;
    password?: string;
    first_name?: string;
    last_name?: string;
  } = {},
  site?: string,
): Promise<{ user: { id: number; username: string; email: string }; api: ApiClient; password: string }> {
  const username = fields.username ?? unique('user');
  const password = fields.password ?? 'Velvet-Harbor-Quill-42';
  const response = await platform.adminApi.post('/api/cloud/users/', {
    email: fields.email ?? `${username}@example.com`,
    username,
    password,
    first_name: fields.first_name ?? 'Test',
    last_name: fields.last_name ?? 'User',
  });
  if (response.status !== 201) throw new Error(`createUser: ${response.status} ${response.text}`);
  const api = (await platform.api.login(username, password)).forSite(site);
  return { user: response.body, api, password };
}

/** An organization with an owner, one site and one app: the usual starting point of a test. */
export async function createTenant(platform: TestPlatform): Promise<Tenant> {
  const { user, api } = await createUser(platform);
  const organization = await api.post('/api/cloud/organizations/', { name: unique('Org') });
  if (organization.status !== 201)
    throw new Error(`createTenant org: ${organization.status} ${organization.text}`);
  const site = await api.post(`/api/cloud/organizations/${organization.body.slug}/sites/`, {
    name: unique('Site'),
  });
  if (site.status !== 201) throw new Error(`createTenant site: ${site.status} ${site.text}`);
  const owner = api.forSite(site.body.slug);
  const app = await owner.post('/api/apps/', { name: unique('App') });
  if (app.status !== 201) throw new Error(`createTenant app: ${app.status} ${app.text}`);
  return {
    organization: organization.body,
    site: site.body,
    app: app.body,
    owner,
    ownerUser: user,
    admin: platform.adminApi,
  };
}

/**
 * Adds a user to the tenant's organization (as the superuser, since owners bring people in by invitation) and has
 * the owner give it these permissions on the tenant's site.
 */
export async function grantSite(tenant: Tenant, userId: number, permissions: string[]): Promise<void> {
  const member = await tenant.admin.post(`/api/cloud/organizations/${tenant.organization.slug}/members/`, {
    user_id: userId,
  });
  if (member.status !== 200) throw new Error(`grantSite member: ${member.status} ${member.text}`);
  const grant = await tenant.owner.put(
    `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/${userId}/`,
    { permissions },
  );
  if (grant.status !== 200) throw new Error(`grantSite permissions: ${grant.status} ${grant.text}`);
}
