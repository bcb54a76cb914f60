import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { socialKeys } from '../../shared/social/model';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';

const base = '/api/auth/social-apps/';
const allowed = '127.0.0.1:8443';
const serverUrl = `https://${allowed}/.well-known/openid-configuration`;

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;

beforeAll(async () => {
  platform = await startTestPlatform({ SOCIAL_LOGIN_ALLOWED_HOSTS: allowed }, {}, { dataPlane: false });
});
afterAll(async () => platform.stop());
beforeEach(async () => {
  tenant = await createTenant(platform);
  owner = tenant.owner;
});

const google = { provider: 'google', name: 'Google', client_id: 'google-client', secret: 'google-secret' };
const oidc = (providerId: string, extra: Record<string, unknown> = {}) => ({
  provider: 'openid_connect',
  provider_id: providerId,
  name: `IdP ${providerId}`,
  client_id: `client-${providerId}`,
  secret: `secret-${providerId}`,
  settings: { server_url: serverUrl, icon: 'idp.svg', auto_redirect: true },
  ...extra,
});

describe('POST /api/auth/social-apps/', () => {
  it('creates an app and echoes the secret once, in the detail representation', async () => {
    const response = await owner.post(base, { ...google, key: 'k' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      message: expect.any(String),
      data: {
        id: expect.any(Number),
        provider: 'google',
        provider_id: '',
        name: 'Google',
        client_id: 'google-client',
        secret: 'google-secret',
        key: 'k',
        settings: {},
        provider_display: 'Google',
        is_configured: true,
      },
    });
  });

  it('keeps the client secret encrypted at rest', async () => {
    const { body } = await owner.post(base, google);
    const stored = await platform.deps.store.doc.send(
      new GetCommand({
        TableName: platform.deps.store.table,
        Key: socialKeys.app(tenant.site.slug, body.data.id),
      }),
    );
    expect(JSON.stringify(stored.Item)).not.toContain('google-secret');
    expect(stored.Item?.secret).toEqual({
      ciphertext: expect.any(String),
      encrypted_key: expect.any(String),
    });
  });

  it('answers 400 "This field is required." for each missing required field', async () => {
    const response = await owner.post(base, {});
    expect(response.status).toBe(400);
    for (const field of ['provider', 'name', 'client_id', 'secret'])
      expect(response.body[field]).toEqual(['This field is required.']);
  });

  it('names the invalid provider and lists the available ones', async () => {
    const response = await owner.post(base, { ...google, provider: 'myspace' });
    expect(response.status).toBe(400);
    expect(response.body.provider[0]).toContain('"myspace"');
    for (const name of ['openid_connect', 'google', 'github', 'microsoft', 'gitlab', 'facebook', 'discord'])
      expect(response.body.provider[0]).toContain(name);
  });

  it('requires provider_id and settings.server_url for openid_connect', async () => {
    const response = await owner.post(base, { ...oidc(''), provider_id: undefined, settings: {} });
    expect(response.status).toBe(400);
    expect(response.body.provider_id).toEqual(['provider_id is required for the OpenID Connect provider.']);
    expect(response.body.settings).toEqual(['server_url is required in settings for OpenID Connect.']);
  });

  it('refuses a second app with the same provider id on the site', async () => {
    expect((await owner.post(base, oidc('corp'))).status).toBe(201);
    const again = await owner.post(base, oidc('corp'));
    expect(again.status).toBe(400);
    expect(again.body.provider_id[0]).toContain('corp');
  });

  it('lets many openid_connect apps live side by side, told apart by provider_id', async () => {
    expect((await owner.post(base, oidc('one'))).status).toBe(201);
    expect((await owner.post(base, oidc('two'))).status).toBe(201);
    const list = await platform.api.forSite(tenant.site.slug).get(base);
    expect(list.body.data.map((app: { provider_id: string }) => app.provider_id).sort()).toEqual([
      'one',
      'two',
    ]);
  });
});

describe('server_url is checked against server-side request forgery when written', () => {
  it.each([
    ['a loopback address not in the allowlist', 'https://127.0.0.1:9443/.well-known/openid-configuration'],
    ['the cloud metadata address', 'https://169.254.169.254/.well-known/openid-configuration'],
    ['a private address', 'https://10.0.0.5/.well-known/openid-configuration'],
    ['an IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/.well-known/openid-configuration'],
    ['localhost', 'https://localhost/.well-known/openid-configuration'],
    ['plain http', `http://${allowed}/.well-known/openid-configuration`.replace('8443', '9443')],
    ['credentials in the URL', `https://user:pw@${allowed}/.well-known/openid-configuration`],
  ])('refuses %s', async (_, url) => {
    const response = await owner.post(base, oidc('ssrf', { settings: { server_url: url } }));
    expect(response.status).toBe(400);
    expect(response.body.settings[0]).toMatch(/^server_url /);
  });

  it('needs no network: a host name that does not resolve is accepted (201), and checked at each call', async () => {
    const created = await owner.post(
      base,
      oidc('unresolved', {
        settings: { server_url: 'https://idp.example.invalid/.well-known/openid-configuration' },
      }),
    );
    expect(created.status).toBe(201);
    const patched = await owner.patch(`${base}${created.body.data.id}/`, {
      settings: { server_url: 'https://idp.example.com/tenant/.well-known/openid-configuration' },
    });
    expect(patched.status).toBe(200);
  });

  it('refuses a URL that is not a discovery document', async () => {
    const response = await owner.post(
      base,
      oidc('doc', { settings: { server_url: `https://${allowed}/issuer` } }),
    );
    expect(response.status).toBe(400);
    expect(response.body.settings[0]).toContain('.well-known/openid-configuration');
  });
});

describe('GET /api/auth/social-apps/', () => {
  beforeEach(async () => {
    await owner.post(base, google);
    await owner.post(base, { provider: 'github', name: 'GitHub', client_id: 'gh-id', secret: 's' });
    await owner.post(base, oidc('acme', { name: 'Acme SSO' }));
  });

  it('is public and shows list items without client id, secret, key or settings', async () => {
    const response = await platform.api.forSite(tenant.site.slug).get(base);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'success',
      message: expect.any(String),
      total: 3,
      pagination: { page: 1, page_size: 10, total_pages: 1 },
    });
    const acme = response.body.data.find((app: { provider_id: string }) => app.provider_id === 'acme');
    expect(acme).toEqual({
      id: expect.any(Number),
      provider: 'openid_connect',
      provider_id: 'acme',
      name: 'Acme SSO',
      provider_display: 'OpenID Connect',
      is_configured: true,
      icon: 'idp.svg',
      auto_redirect: true,
    });
    expect(response.text).not.toMatch(/client_id|secret|"key"|settings/);
  });

  it('searches name, provider, client_id and provider_id, filters by provider, orders and pages', async () => {
    const anon = platform.api.forSite(tenant.site.slug);
    expect((await anon.get(`${base}?search=gh-id`)).body.data.map((a: { name: string }) => a.name)).toEqual([
      'GitHub',
    ]);
    expect((await anon.get(`${base}?search=acme`)).body.total).toBe(1);
    expect((await anon.get(`${base}?provider=google`)).body.data).toHaveLength(1);
    const ordered = await anon.get(`${base}?ordering=-name`);
    expect(ordered.body.data.map((a: { name: string }) => a.name)).toEqual(['Google', 'GitHub', 'Acme SSO']);
    const page = await anon.get(`${base}?ordering=name&page=2&page_size=2`);
    expect(page.body.data.map((a: { name: string }) => a.name)).toEqual(['Google']);
    expect(page.body.pagination).toEqual({ page: 2, page_size: 2, total_pages: 2 });
  });

  it('refuses a page_size above 100', async () => {
    const response = await platform.api.forSite(tenant.site.slug).get(`${base}?page_size=101`);
    expect(response.status).toBe(400);
    expect(response.body.page_size).toBeDefined();
  });

  it("shows only the request's site's apps", async () => {
    const other = await createTenant(platform);
    expect((await platform.api.forSite(other.site.slug).get(base)).body.total).toBe(0);
  });
});

describe('GET, PATCH and DELETE /api/auth/social-apps/{id}/', () => {
  let id: number;
  beforeEach(async () => {
    id = (await owner.post(base, oidc('corp'))).body.data.id;
  });

  it('shows the detail, secret hidden, to any signed-in user', async () => {
    const { api } = await createUser(platform, {}, tenant.site.slug);
    const response = await api.get(`${base}${id}/`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, secret: '***HIDDEN***', client_id: 'client-corp' });
    expect(response.body.settings).toEqual({ server_url: serverUrl, icon: 'idp.svg', auto_redirect: true });
  });

  it('answers 401 with the spec body without a token, 404 with "Not found." for an unknown id', async () => {
    const anonymous = await platform.api.forSite(tenant.site.slug).get(`${base}${id}/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    const missing = await owner.get(`${base}999999/`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Not found.' });
  });

  it("does not show another site's app", async () => {
    const other = await createTenant(platform);
    expect((await other.owner.get(`${base}${id}/`)).status).toBe(404);
  });

  it('merges settings on PATCH (null removes a key) and keeps omitted fields', async () => {
    const response = await owner.patch(`${base}${id}/`, { name: 'Renamed', settings: { icon: null } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, message: expect.any(String) });
    expect(response.body.data).toMatchObject({
      name: 'Renamed',
      client_id: 'client-corp',
      secret: '***HIDDEN***',
    });
    expect(response.body.data.settings).toEqual({ server_url: serverUrl, auto_redirect: true });
  });

  it('hides a new secret in the PATCH answer, and checks the merged app again', async () => {
    const secret = await owner.patch(`${base}${id}/`, { secret: 'rotated' });
    expect(secret.body.data.secret).toBe('***HIDDEN***');
    const bad = await owner.patch(`${base}${id}/`, { settings: { server_url: null } });
    expect(bad.status).toBe(400);
    expect(bad.body.settings).toEqual(['server_url is required in settings for OpenID Connect.']);
  });

  it('lets only superusers and the organization owner write (403 with the spec body)', async () => {
    const { user, api } = await createUser(platform, {}, tenant.site.slug);
    await grantSite(tenant, user.id, ['admin_site']);
    const denied = { detail: 'You do not have permission to perform this action.' };
    const patch = await api.patch(`${base}${id}/`, { name: 'x' });
    expect(patch.status).toBe(403);
    expect(patch.body).toEqual(denied);
    expect((await api.post(base, google)).status).toBe(403);
    expect((await api.delete(`${base}${id}/`)).status).toBe(403);
    expect(
      (await platform.adminApi.forSite(tenant.site.slug).patch(`${base}${id}/`, { name: 'y' })).status,
    ).toBe(200);
    expect((await platform.api.forSite(tenant.site.slug).post(base, google)).status).toBe(401);
  });

  it('deletes an app no user signs in with', async () => {
    const response = await owner.delete(`${base}${id}/`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: expect.any(String) });
    expect((await owner.get(`${base}${id}/`)).status).toBe(404);
  });

  it('refuses to delete an app users sign in with: 400 with the count, a suggestion and active_users', async () => {
    for (const subject of ['a', 'b'])
      await platform.deps.store.doc.send(
        new PutCommand({
          TableName: platform.deps.store.table,
          Item: { ...socialKeys.identity(tenant.site.slug, 'corp', subject), user_id: 1 },
        }),
      );
    const response = await owner.delete(`${base}${id}/`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      message: expect.stringContaining('2'),
      suggestion: expect.any(String),
      active_users: 2,
    });
  });
});
