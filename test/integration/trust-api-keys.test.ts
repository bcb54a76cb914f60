import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHash, apiKeyPattern } from '../../shared/api-keys/model';
import { apiKeyOfHash, deleteApiKey } from '../../shared/api-keys/repository';
import { lastUsedEveryMs } from '../../shared/api-keys/resolution';
import { captureLog } from '../support/capture-log';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant, unique } from '../support/tenant';

/**
 * API keys (docs/security.md, "API keys"): a key belongs to one site and acts within it, as a principal of its own
 * capped by its creator's current rights; it never reaches another site or organization, never creates keys or
 * invites people, stops at its revocation within the documented second, and is never logged.
 */

/** A clock that moves only when told (and a millisecond a reading, so instants stay strict): throttles and caches
 * see the same time whatever the machine's speed. */
function manualClock() {
  let now = Date.now();
  return {
    clock: () => new Date(++now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const time = manualClock();
const { log, lines } = captureLog();
const perSecond = 10;

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
/** A second site of A's organization. */
let sibling: string;

const keysPath = (tenant: Tenant, site = tenant.site.slug) =>
  `/api/cloud/organizations/${tenant.organization.slug}/sites/${site}/api-keys/`;

async function createKey(api: ApiClient, tenant: Tenant, body: Record<string, unknown>) {
  const response = await api.post(keysPath(tenant), { name: unique('Key'), ...body });
  if (response.status !== 201) throw new Error(`createKey: ${response.status} ${response.text}`);
  return response.body as { id: string; key: string; prefix: string };
}

/** A client that sends the key as its bearer, naming `site` (the key's own unless told). */
const withKey = (key: string, site?: string) => platform.api.withToken(key).forSite(site);

beforeAll(async () => {
  platform = await startTestPlatform(
    { API_KEY_REQUESTS_PER_SECOND: String(perSecond) },
    { log, clock: time.clock },
    { dataPlane: false },
  );
  [a, b] = await Promise.all([createTenant(platform), createTenant(platform)]);
  const site = await a.owner.post(`/api/cloud/organizations/${a.organization.slug}/sites/`, {
    name: unique('Sibling'),
  });
  sibling = site.body.slug;
  const type = await a.owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
  if (type.status !== 201) throw new Error(`secret type: ${type.status} ${type.text}`);
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

describe('creating and listing keys', () => {
  it('answers 201 with the key once; afterwards only its id, prefix, grants, creator and times', async () => {
    const made = await a.owner.post(keysPath(a), { name: 'Backend', permissions: ['view_site'] });
    expect(made.status).toBe(201);
    expect(made.body.key).toMatch(apiKeyPattern);
    expect(made.body.key.startsWith(made.body.prefix)).toBe(true);
    expect(made.body).toMatchObject({
      name: 'Backend',
      site: a.site.slug,
      permissions: ['view_site'],
      app_roles: [],
      created_by: { id: a.ownerUser.id, username: a.ownerUser.username },
      last_used_at: null,
      expires_at: null,
    });
    const listed = await a.owner.get(keysPath(a));
    expect(listed.status).toBe(200);
    const shown = listed.body.find((key: { id: string }) => key.id === made.body.id);
    const { key: _key, ...view } = made.body;
    expect(shown).toEqual(view);
    expect(listed.text).not.toContain(made.body.key);
    expect(listed.text).not.toContain(apiKeyHash(made.body.key));
  });

  it('keeps only the hash of a key in the store', async () => {
    const made = await createKey(a.owner, a, { permissions: ['view_site'] });
    const { Items } = await platform.deps.store.doc.send(
      new QueryCommand({
        TableName: platform.deps.store.table,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `SITE#${a.site.slug}` },
      }),
    );
    const stored = await apiKeyOfHash(platform.deps.store, apiKeyHash(made.key));
    expect(stored?.id).toBe(made.id);
    expect(JSON.stringify([Items, stored])).not.toContain(made.key);
  });

  it('refuses a permission no key holds (400 naming the field) and a bad expiry', async () => {
    for (const permission of ['manage_site_users', 'admin_site']) {
      const refused = await a.owner.post(keysPath(a), { name: 'K', permissions: [permission] });
      expect(refused.status).toBe(400);
      expect(refused.body.fields?.permissions ?? refused.body.permissions).toBeDefined();
    }
    const past = await a.owner.post(keysPath(a), {
      name: 'K',
      permissions: ['view_site'],
      expires_at: new Date(time.clock().getTime() - 1000).toISOString(),
    });
    expect(past.status).toBe(400);
    expect(past.text).toContain('expires_at');
  });

  it('is for members of the organization: another organization is not found', async () => {
    const refused = await b.owner.post(keysPath(a), { name: 'K', permissions: ['view_site'] });
    expect(refused.status).toBe(404);
    // A site of another organization under one's own organization's path is not found either.
    const mixed = await a.owner.post(
      `/api/cloud/organizations/${a.organization.slug}/sites/${b.site.slug}/api-keys/`,
      { name: 'K', permissions: ['view_site'] },
    );
    expect(mixed.status).toBe(404);
  });
});

describe('a key never holds more than its creator could grant', () => {
  it('refuses permissions the creator lacks at creation', async () => {
    const viewer = await createUser(platform, {}, a.site.slug);
    await grantSite(a, viewer.user.id, ['view_site']);
    const refused = await viewer.api.post(keysPath(a), { name: 'K', permissions: ['change_site'] });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('change_site');
    const allowed = await viewer.api.post(keysPath(a), { name: 'K', permissions: ['view_site'] });
    expect(allowed.status).toBe(201);
  });

  it('refuses application roles the creator does not hold, and names unknown ones', async () => {
    const role = await a.owner.post(`/api/app/${a.app.slug}/roles`, { name: unique('Editor') });
    expect(role.status).toBe(201);
    const slug = role.body.data.slug as string;
    const viewer = await createUser(platform, {}, a.site.slug);
    await grantSite(a, viewer.user.id, ['view_site']);
    const lacking = await viewer.api.post(keysPath(a), {
      name: 'K',
      permissions: ['view_site'],
      app_roles: [slug],
    });
    expect(lacking.status).toBe(403);
    const unknown = await a.owner.post(keysPath(a), {
      name: 'K',
      permissions: ['view_site'],
      app_roles: ['no-such-role'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('app_roles');
    // The owner may assign any role, so may put it on a key.
    const owned = await a.owner.post(keysPath(a), {
      name: 'K',
      permissions: ['view_site'],
      app_roles: [slug],
    });
    expect(owned.status).toBe(201);
    expect(owned.body.app_roles).toEqual([slug]);
  });

  it("is capped by its creator's current rights: a permission the creator loses, the key loses", async () => {
    const writer = await createUser(platform, {}, a.site.slug);
    await grantSite(a, writer.user.id, ['change_site']);
    const { key } = await createKey(writer.api, a, { permissions: ['change_site'] });
    const secret = (name: string) => ({ secret_type: 'token', key: name, value: { v: 1 } });
    const first = await withKey(key).post('/api/secrets/', secret(unique('s')));
    expect(first.status, first.text).toBe(201);
    const demoted = await a.owner.put(
      `/api/cloud/organizations/${a.organization.slug}/sites/${a.site.slug}/permissions/${writer.user.id}/`,
      { permissions: ['view_site'] },
    );
    expect(demoted.status).toBe(200);
    expect((await withKey(key).post('/api/secrets/', secret(unique('s')))).status).toBe(403);
    // What both still hold (view) the key still may.
    expect((await withKey(key).get('/api/secrets/')).status).toBe(200);
  });

  it('only does what its own permissions grant, even for an owner', async () => {
    const { key } = await createKey(a.owner, a, { permissions: ['view_site'] });
    expect((await withKey(key).get('/api/apps/')).status).toBe(200);
    expect((await withKey(key).post('/api/apps/', { name: unique('App') })).status).toBe(403);
    const own = await withKey(key).get('/api/cloud/users/me/site-permissions/');
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      user_id: a.ownerUser.id,
      is_superuser: false,
      organization_role: null,
      permissions: ['view_site'],
      actions: ['view', 'access'],
      social_app_writes: false,
    });
  });
});

describe('a key acts only within its site', () => {
  it('is refused on another site of its organization and on another organization’s site (403)', async () => {
    const { key } = await createKey(a.owner, a, { permissions: ['change_site'] });
    expect((await withKey(key, a.site.slug).get('/api/apps/')).status).toBe(200);
    // Without X-Site the key's own site is the request's site.
    expect((await withKey(key).get('/api/apps/')).status).toBe(200);
    for (const other of [sibling, b.site.slug]) {
      const refused = await withKey(key, other).get('/api/apps/');
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain('another site');
      expect(refused.text).not.toContain(b.app.slug);
    }
  });

  it("is refused on its organization's routes (403) and another organization's (404)", async () => {
    const { key } = await createKey(a.owner, a, { permissions: ['view_site'] });
    expect((await withKey(key).get(`/api/cloud/organizations/${a.organization.slug}/`)).status).toBe(403);
    expect((await withKey(key).get(`/api/cloud/organizations/${a.organization.slug}/members/`)).status).toBe(
      403,
    );
    expect((await withKey(key).get(`/api/cloud/organizations/${b.organization.slug}/`)).status).toBe(404);
    expect((await withKey(key).get(keysPath(b))).status).toBe(404);
  });

  it('is not a user: account and platform routes refuse it', async () => {
    const { key } = await createKey(a.owner, a, { permissions: ['view_site'] });
    expect((await withKey(key).get('/api/cloud/users/me/')).status).toBe(403);
    expect((await withKey(key).get(`/api/cloud/users/${a.ownerUser.id}/`)).status).toBe(403);
    expect((await withKey(key).get('/api/cloud/organizations/')).status).toBe(403);
  });
});

describe('a key cannot create keys or invite people', () => {
  it('is refused creating, listing and revoking keys', async () => {
    const made = await createKey(a.owner, a, { permissions: ['view_site', 'change_site', 'manage_site'] });
    const api = withKey(made.key);
    expect((await api.post(keysPath(a), { name: 'K', permissions: ['view_site'] })).status).toBe(403);
    expect((await api.get(keysPath(a))).status).toBe(403);
    expect((await api.delete(`${keysPath(a)}${made.id}/`)).status).toBe(403);
  });

  it('is refused inviting people and assigning roles', async () => {
    const { key } = await createKey(a.owner, a, { permissions: ['view_site', 'change_site', 'manage_site'] });
    const invite = await withKey(key).post(`/api/cloud/organizations/${a.organization.slug}/invitations/`, {
      email: `${unique('guest')}@example.com`,
    });
    expect(invite.status).toBe(403);
    const role = await a.owner.post(`/api/app/${a.app.slug}/roles`, { name: unique('Viewer') });
    const assign = await withKey(key).post('/api/assign/roles', {
      roles: [role.body.data.slug],
      usernames: [a.ownerUser.username],
    });
    expect(assign.status).toBe(403);
    const add = await withKey(key).post(`/api/roles/${role.body.data.slug}/users`, {
      usernames: [a.ownerUser.username],
    });
    expect(add.status).toBe(403);
  });
});

describe('revocation and expiry', () => {
  it('refuses a key revoked through this process on the next request', async () => {
    const made = await createKey(a.owner, a, { permissions: ['view_site'] });
    expect((await withKey(made.key).get('/api/apps/')).status).toBe(200);
    expect((await a.owner.delete(`${keysPath(a)}${made.id}/`)).status).toBe(204);
    const refused = await withKey(made.key).get('/api/apps/');
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toContain('not valid');
    expect((await a.owner.delete(`${keysPath(a)}${made.id}/`)).status).toBe(404);
  });

  // The documented bound (docs/security.md): one second, whatever the constant says.
  it('refuses a key revoked through another process within a second', async () => {
    const made = await createKey(a.owner, a, { permissions: ['view_site'] });
    expect((await withKey(made.key).get('/api/apps/')).status).toBe(200);
    // Another container's revocation: the items go, this process is not told.
    const stored = await apiKeyOfHash(platform.deps.store, apiKeyHash(made.key));
    expect(stored && (await deleteApiKey(platform.deps.store, stored))).toBe(true);
    time.advance(1000);
    expect((await withKey(made.key).get('/api/apps/')).status).toBe(401);
  });

  it('refuses a key once it expired', async () => {
    const expires = new Date(time.clock().getTime() + 60_000).toISOString();
    const { key } = await createKey(a.owner, a, { permissions: ['view_site'], expires_at: expires });
    expect((await withKey(key).get('/api/apps/')).status).toBe(200);
    time.advance(60_000);
    expect((await withKey(key).get('/api/apps/')).status).toBe(401);
  });

  it('refuses the keys of a creator who was deactivated', async () => {
    const someone = await createUser(platform, {}, a.site.slug);
    await grantSite(a, someone.user.id, ['view_site']);
    const { key } = await createKey(someone.api, a, { permissions: ['view_site'] });
    expect((await withKey(key).get('/api/apps/')).status).toBe(200);
    expect((await a.admin.patch(`/api/cloud/users/${someone.user.id}/`, { is_active: false })).status).toBe(
      200,
    );
    expect((await withKey(key).get('/api/apps/')).status).toBe(401);
  });

  it('lets the creator revoke their own key, and hides it from other members', async () => {
    const one = await createUser(platform, {}, a.site.slug);
    const two = await createUser(platform, {}, a.site.slug);
    await grantSite(a, one.user.id, ['view_site']);
    await grantSite(a, two.user.id, ['view_site']);
    const made = await createKey(one.api, a, { permissions: ['view_site'] });
    const seen = (await two.api.get(keysPath(a))).body.map((key: { id: string }) => key.id);
    expect(seen).not.toContain(made.id);
    expect((await two.api.delete(`${keysPath(a)}${made.id}/`)).status).toBe(404);
    expect((await one.api.delete(`${keysPath(a)}${made.id}/`)).status).toBe(204);
  });
});

describe('throttle and last use', () => {
  it(`gives each key its own throttle of ${perSecond} requests a second`, async () => {
    const busy = await createKey(a.owner, a, { permissions: ['view_site'] });
    const calm = await createKey(a.owner, a, { permissions: ['view_site'] });
    time.advance(1000);
    const statuses: number[] = [];
    for (let call = 0; call < perSecond + 1; call++)
      statuses.push((await withKey(busy.key).get('/api/apps/')).status);
    expect(statuses.slice(0, perSecond).every((status) => status === 200)).toBe(true);
    expect(statuses[perSecond]).toBe(429);
    // Another key, and the owner's own token, are not slowed by it.
    expect((await withKey(calm.key).get('/api/apps/')).status).toBe(200);
    expect((await a.owner.get('/api/apps/')).status).toBe(200);
    time.advance(1000);
    expect((await withKey(busy.key).get('/api/apps/')).status).toBe(200);
  });

  it(`writes last_used_at at most once in ${lastUsedEveryMs / 1000} s`, async () => {
    const made = await createKey(a.owner, a, { permissions: ['view_site'] });
    const lastUsed = async () =>
      (await a.owner.get(keysPath(a))).body.find((key: { id: string }) => key.id === made.id).last_used_at;
    time.advance(1000);
    await withKey(made.key).get('/api/apps/');
    const first = await lastUsed();
    expect(first).not.toBeNull();
    time.advance(lastUsedEveryMs / 2);
    await withKey(made.key).get('/api/apps/');
    expect(await lastUsed()).toBe(first);
    time.advance(lastUsedEveryMs / 2 + 1);
    await withKey(made.key).get('/api/apps/');
    expect(Date.parse(await lastUsed())).toBeGreaterThan(Date.parse(first));
  });
});

describe('logging', () => {
  it('never writes a key in a log line; request lines name its id', async () => {
    const made = await createKey(a.owner, a, { permissions: ['view_site'] });
    const before = lines.length;
    await withKey(made.key).get('/api/apps/');
    await withKey(made.key, b.site.slug).get('/api/apps/');
    await withKey(made.key).get('/api/cloud/users/me/');
    await withKey(`${made.key.slice(0, -1)}x`).get('/api/apps/');
    await withKey(`${made.key}extra`).get('/api/apps/');
    const written = lines.slice(before);
    expect(written.filter((line) => line.message === 'request').length).toBeGreaterThanOrEqual(5);
    expect(written.some((line) => line.fields.api_key_id === made.id)).toBe(true);
    const all = JSON.stringify(lines);
    expect(all).not.toContain(made.key);
    expect(all).not.toContain(made.key.slice(made.prefix.length));
  });
});
