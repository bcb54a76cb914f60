import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/groups';
import { pathParamNames } from '../../shared/api/path-params';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: what a tenant (or anyone) reaches through the platform's network-facing
 * edges. A tenant's social app may not aim the platform's outgoing calls at the platform's own network, however the
 * address is spelt; a shared client address may not lock others out of their invitation links.
 */
let platform: TestPlatform;
let tenant: Tenant;
let discovery: Awaited<ReturnType<typeof startDiscovery>>;

/** Loopback 127.0.0.1 in IPv6 forms that carry it: IPv4-compatible, 6to4, SIIT, NAT64, Teredo (server). */
const loopbackForms = [
  '[::7f00:1]',
  '[2002:7f00:1::]',
  '[::ffff:0:7f00:1]',
  '[64:ff9b::7f00:1]',
  '[2001:0:7f00:1::1]',
];

/**
 * A provider on 127.0.0.1 (allowlisted, as a local one is): `/<n>/.well-known/openid-configuration` is a discovery
 * document whose endpoints all sit at `loopbackForms[n]`.
 */
async function startDiscovery() {
  const server = createServer((req, res) => {
    const form = loopbackForms[Number(/^\/(\d+)\//.exec(req.url ?? '')?.[1])] ?? '[::1]';
    const issuer = `http://${req.headers.host}/${loopbackForms.indexOf(form)}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        issuer,
        authorization_endpoint: `https://${form}/authorize`,
        token_endpoint: `https://${form}/token`,
        userinfo_endpoint: `https://${form}/userinfo`,
        jwks_uri: `https://${form}/jwks`,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, host, url: (form: number) => `http://${host}/${form}/.well-known/openid-configuration` };
}

beforeAll(async () => {
  discovery = await startDiscovery();
  platform = await startTestPlatform(
    // A small request deadline (docs/local-runtime.md), so that the requests that never arrive end quickly.
    {
      SOCIAL_LOGIN_ALLOWED_HOSTS: discovery.host,
      REQUEST_TIMEOUT_MS: '2000',
      REQUEST_HEADERS_TIMEOUT_MS: '1000',
    },
    {},
    { dataPlane: false },
  );
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform?.stop();
  discovery?.server.closeAllConnections();
  await new Promise((resolve) => discovery?.server.close(resolve));
});

const oidc = (providerId: string, serverUrl: string) => ({
  provider: 'openid_connect',
  provider_id: providerId,
  name: providerId,
  client_id: 'client',
  secret: 'secret',
  settings: { server_url: serverUrl },
});

describe('cross-tenant trust suite: outgoing calls judge the IPv4 address an IPv6 form carries', () => {
  it.each([
    ...loopbackForms.map((host) => `https://${host}/.well-known/openid-configuration`),
    'https://[::ffff:7f00:1]/.well-known/openid-configuration',
    'https://[::a9fe:a9fe]/.well-known/openid-configuration',
    'https://[2002:a9fe:a9fe::]/.well-known/openid-configuration',
  ])('refuses %s when the app is written: 400 naming server_url', async (serverUrl) => {
    const created = await tenant.owner.post('/api/auth/social-apps/', oidc(unique('v6'), serverUrl));
    expect(created.status).toBe(400);
    expect(created.body.settings[0]).toMatch(/^server_url names a loopback, private, link-local or metadata/);
  });

  it.each([
    'https://localhost./.well-known/openid-configuration',
    'https://LOCALHOST/.well-known/openid-configuration',
    'https://idp.localhost./.well-known/openid-configuration',
    'https://metadata.google.internal./.well-known/openid-configuration',
    'https://Metadata.Google.Internal/.well-known/openid-configuration',
  ])('refuses the local name %s when the app is written, not only at connect time', async (serverUrl) => {
    const created = await tenant.owner.post('/api/auth/social-apps/', oidc(unique('local'), serverUrl));
    expect(created.status).toBe(400);
    expect(created.body.settings).toEqual(['server_url names a local host.']);
    // And on an update of an app that was accepted.
    const good = await tenant.owner.post('/api/auth/social-apps/', oidc(unique('ok'), discovery.url(0)));
    expect(good.status).toBe(201);
    const patched = await tenant.owner.patch(`/api/auth/social-apps/${good.body.data.id}/`, {
      settings: { server_url: serverUrl },
    });
    expect(patched.status).toBe(400);
    expect(patched.body.settings).toEqual(['server_url names a local host.']);
  });

  it.each(loopbackForms.map((form, index) => [form, index] as const))(
    'the check route and a login refuse the endpoints a discovery document names at %s',
    async (form, index) => {
      const providerId = unique('disc');
      const created = await tenant.owner.post(
        '/api/auth/social-apps/',
        oidc(providerId, discovery.url(index)),
      );
      expect(created.status).toBe(201);
      const checked = await tenant.owner.post(`/api/auth/social-apps/${created.body.data.id}/check/`, {});
      expect(checked.status).toBe(200);
      expect(checked.body.ok).toBe(false);
      expect(checked.body.checks).toContainEqual({
        name: 'discovery',
        ok: false,
        detail: expect.stringMatching(
          /(endpoint|jwks_uri) names a loopback, private, link-local or metadata/,
        ),
      });
      // No check vouches for the loopback form.
      for (const check of checked.body.checks as { ok: boolean; detail: string }[])
        if (check.ok) expect(check.detail).not.toContain(form);
      const visitor = platform.api.forSite(tenant.site.slug);
      const started = await visitor.get(
        `/api/auth/${providerId}/redirect/?redirect_uri=${encodeURIComponent('http://127.0.0.1:5173/cb')}`,
      );
      expect(started.status).toBe(502);
      expect(started.body.authorization_url).toBeUndefined();
      expect(started.body.detail).toMatch(/names a loopback, private, link-local or metadata address/);
    },
  );
});

describe('cross-tenant trust suite: a shared client address does not lock others out of their invitation links', () => {
  async function invite() {
    const email = `${unique('nat')}@example.com`;
    const made = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      {
        invitee_identifier: email,
      },
    );
    expect(made.status).toBe(201);
    return latestToken(platform, email);
  }

  it('after 25 unknown tokens from one address, a valid token from the same address answers 200', async () => {
    const token = await invite();
    // Someone else behind the same address (every test request comes from 127.0.0.1) tries tokens.
    for (let i = 0; i < 25; i++) {
      const guess = await platform.api.get(`/api/cloud/invitations/${unique('guess')}x${i}/details/`);
      expect(guess.status).toBe(404);
    }
    const details = await platform.api.get(`/api/cloud/invitations/${token}/details/`);
    expect(details.status).toBe(200);
    expect(details.headers.get('retry-after')).toBeNull();
    const page = await platform.api.get(`/invitations/${token}`);
    expect(page.status).toBe(200);
  });
});

describe('cross-tenant trust suite: no input reaches a store beyond what it can hold', () => {
  const long = 'a'.repeat(3000);
  const withPathParams = routes.filter((route) => pathParamNames(route.path).length > 0);

  it.each(withPathParams.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: a path parameter of 3,000 characters is a 400 naming it, for anyone',
    async (_, route) => {
      for (const name of pathParamNames(route.path)) {
        const path = route.path.replace(/\{(\w+)\}/g, (_m, other: string) =>
          other === name ? long : other.endsWith('id') ? '1' : 'x',
        );
        for (const client of [platform.adminApi, platform.api]) {
          const site = client.forSite(tenant.site.slug);
          const answer = await site.request(route.method, path, route.method === 'GET' ? undefined : {});
          expect(answer.status, `${route.method} ${path.slice(0, 80)}: ${answer.text.slice(0, 200)}`).toBe(
            400,
          );
          expect(answer.text).toContain(name);
        }
      }
    },
  );
});

describe('cross-tenant trust suite: an integer beyond 2^53 is a 400 naming the field', () => {
  it.each(['9007199254740994', '1e20', '99999999999999999999'])(
    'POST …/groups/{group}/members/ with user_id %s',
    async (number) => {
      const groups = `/api/cloud/organizations/${tenant.organization.slug}/groups/`;
      const group = await tenant.owner.post(groups, { name: unique('Group') });
      expect(group.status).toBe(201);
      const answer = await tenant.owner.request('POST', `${groups}${group.body.slug}/members/`, undefined, {
        raw: `{"user_id": ${number}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body)).toEqual(['user_id']);
    },
  );

  it.each([
    ['/api/cloud/organizations/{org}/members/', 'user_id'],
    ['/api/cloud/organizations/{org}/transfer-ownership/', 'user_id'],
  ])('POST %s with an unsafe %s', async (path, field) => {
    const answer = await tenant.owner.request(
      'POST',
      path.replace('{org}', tenant.organization.slug),
      undefined,
      { raw: `{"${field}": 9007199254740994}`, headers: { 'content-type': 'application/json' } },
    );
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toContain(field);
  });

  it('a page beyond the safe range is a 400 naming page', async () => {
    const answer = await tenant.owner.get('/api/cloud/organizations/?page=9007199254740994');
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toEqual(['page']);
  });
});

describe('cross-tenant trust suite: a request that never arrives does not hold the server', () => {
  /** Sends `text` and nothing more; what the server sent once it closed the connection (the test's timeout guards). */
  function stall(text: string): Promise<string> {
    const { hostname, port } = new URL(platform.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.write(text);
    });
  }

  it('a body announced by Content-Length and never sent, and a head never finished: cut off, nothing run', async () => {
    const groups = `/api/cloud/organizations/${tenant.organization.slug}/groups/`;
    const group = await tenant.owner.post(groups, { name: unique('Stalled') });
    expect(group.status).toBe(201);
    const [body, head] = await Promise.all([
      stall(
        `POST ${groups}${group.body.slug}/members/ HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
          `Authorization: Bearer ${tenant.owner.token}\r\nContent-Type: application/json\r\n` +
          'Content-Length: 100000\r\n\r\n{"user_id": ',
      ),
      stall(`GET ${groups} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.owner.token}`),
    ]);
    expect(body === '' || /^HTTP\/1\.1 408 /.test(body), body).toBe(true);
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    // Nothing was added, and the server serves.
    const members = await tenant.owner.get(`${groups}${group.body.slug}/members/`);
    expect(members.status).toBe(200);
    expect(members.body.results).toEqual([]);
  }, 60_000);
});
