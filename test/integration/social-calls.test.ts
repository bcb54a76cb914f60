import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant } from '../support/tenant';

/**
 * The bounds of social login's outgoing calls and of starting logins (docs/social-login.md): one deadline per
 * provider call however slowly the provider trickles its answer, a limit of logins started per address, and the
 * explicit check of a saved app (write-time checks need no network).
 */

/** A server on 127.0.0.1 that answers `/.well-known/openid-configuration` with `discovery(port)`, and trickles
 * one byte of an answer that never ends, every few milliseconds, on every other path. */
async function slowProvider(discovery: (issuer: string) => Record<string, unknown> | undefined) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;
  const timers = new Set<NodeJS.Timeout>();
  server.on('request', (req, res) => {
    const document = discovery(issuer);
    if (document && req.url === '/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const timer = setInterval(() => res.write(' '), 20);
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  });
  return {
    host: `127.0.0.1:${port}`,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    stop: () => {
      for (const timer of timers) clearInterval(timer);
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let idp: IdentityProvider;
let trickling: Awaited<ReturnType<typeof slowProvider>>;
let slowToken: Awaited<ReturnType<typeof slowProvider>>;
let platform: TestPlatform;
let tenant: Tenant;
let visitor: ApiClient;

beforeAll(async () => {
  idp = await startIdentityProvider();
  // The discovery document itself never finishes.
  trickling = await slowProvider(() => undefined);
  // A good discovery document whose token endpoint never finishes.
  slowToken = await slowProvider((issuer) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
  }));
  platform = await startTestPlatform(
    {
      SOCIAL_LOGIN_ALLOWED_HOSTS: [idp.host, trickling.host, slowToken.host].join(','),
      // A tiny deadline, so that the trickling answers (a byte every 20 ms) are cut off quickly.
      SOCIAL_LOGIN_CALL_TIMEOUT_MS: '400',
      SOCIAL_LOGIN_REDIRECTS_PER_MINUTE: '5',
    },
    {},
    { dataPlane: false },
  );
  tenant = await createTenant(platform);
  visitor = platform.api.forSite(tenant.site.slug);
});
afterAll(async () => {
  await platform.stop();
  await Promise.all([idp.stop(), trickling.stop(), slowToken.stop()]);
});

async function oidcApp(providerId: string, serverUrl: string, secret = 'secret') {
  const created = await tenant.owner.post('/api/auth/social-apps/', {
    provider: 'openid_connect',
    provider_id: providerId,
    name: providerId,
    client_id: idp.clientId,
    secret,
    settings: { server_url: serverUrl },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as number;
}

const redirectPath = (provider: string) =>
  `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`;

describe('one deadline per provider call (SOCIAL_LOGIN_CALL_TIMEOUT_MS)', () => {
  it('cuts off a discovery document that trickles forever: 502 naming the deadline', async () => {
    await oidcApp('trickle', trickling.discoveryUrl);
    const response = await visitor.get(redirectPath('trickle'));
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ detail: "The provider's discovery document did not answer in time." });
  });

  it('cuts off a token endpoint that trickles forever during the exchange', async () => {
    await oidcApp('slowtoken', slowToken.discoveryUrl);
    const started = await visitor.get(redirectPath('slowtoken'));
    expect(started.status).toBe(200);
    const response = await visitor.post('/api/auth/slowtoken/token/', {
      code: 'c',
      state: started.body.state,
    });
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ detail: "The provider's token endpoint did not answer in time." });
  });
});

describe('POST /api/auth/social-apps/{id}/check/', () => {
  it('checks a working app: every check passes', async () => {
    const id = await oidcApp('checked', idp.discoveryUrl, idp.clientSecret);
    const response = await tenant.owner.post(`/api/auth/social-apps/${id}/check/`, {});
    expect(response.status).toBe(200);
    expect(response.body.ok).toBe(true);
    expect(response.body.checks.map((check: { name: string }) => check.name)).toEqual([
      'configured',
      'addresses: server_url',
      'discovery',
      'addresses: authorization_endpoint',
      'addresses: token_endpoint',
      'addresses: userinfo_endpoint',
      'addresses: jwks_uri',
      'key_set',
    ]);
  });

  it('says which check failed: a host that does not resolve, a discovery document too slow', async () => {
    const unresolved = await oidcApp(
      'unresolved',
      'https://idp.example.invalid/.well-known/openid-configuration',
    );
    const first = await tenant.owner.post(`/api/auth/social-apps/${unresolved}/check/`, {});
    expect(first.status).toBe(200);
    expect(first.body.ok).toBe(false);
    expect(first.body.checks).toContainEqual({
      name: 'addresses: server_url',
      ok: false,
      detail:
        'https://idp.example.invalid/.well-known/openid-configuration names a host that does not resolve.',
    });
    const slow = await oidcApp('slowcheck', trickling.discoveryUrl);
    const second = await tenant.owner.post(`/api/auth/social-apps/${slow}/check/`, {});
    expect(second.body.ok).toBe(false);
    expect(second.body.checks).toContainEqual({
      name: 'discovery',
      ok: false,
      detail: "The provider's discovery document did not answer in time.",
    });
  });

  it('is for those who may change the app: 401 anonymous, 403 another signed-in user, 404 unknown', async () => {
    const id = await oidcApp('guarded', idp.discoveryUrl);
    expect((await visitor.post(`/api/auth/social-apps/${id}/check/`, {})).status).toBe(401);
    const { api } = await createUser(platform, {}, tenant.site.slug);
    expect((await api.post(`/api/auth/social-apps/${id}/check/`, {})).status).toBe(403);
    expect((await tenant.owner.post('/api/auth/social-apps/999999/check/', {})).status).toBe(404);
  });
});

// Last: it spends this address's logins for the minute.
describe('logins started per client address (SOCIAL_LOGIN_REDIRECTS_PER_MINUTE)', () => {
  it('answers 429 with Retry-After once an address has started too many; a signed-in user counts apart', async () => {
    await oidcApp('limited', idp.discoveryUrl, idp.clientSecret);
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<ApiClient['get']>> | undefined;
    // At most 5 per minute window: 11 calls cross at most one window boundary, so one of them is refused.
    for (let call = 0; call < 11 && !throttled; call++) {
      const response = await visitor.get(redirectPath('limited'));
      statuses.push(response.status);
      if (response.status === 429) throttled = response;
    }
    expect(statuses).toContain(429);
    expect(throttled?.body).toEqual({ detail: 'Request was throttled.', retry_after: expect.any(Number) });
    expect(Number(throttled?.headers.get('retry-after'))).toBeGreaterThan(0);
    const { api } = await createUser(platform, {}, tenant.site.slug);
    expect((await api.get(redirectPath('limited'))).status).toBe(200);
  });
});
