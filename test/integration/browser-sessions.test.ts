import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateUser } from '../../shared/accounts/users';
import { keepCurrentBrowserSession } from '../../shared/auth/browser-sessions';
import { ApiClient, type ApiResponse } from '../support/client';
import { strictClock } from '../support/clock';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant } from '../support/tenant';

/** Browser sessions over HTTP: the `sessionid` cookie, its CSRF origin check, logout, and what ends a session. */

const sessionSeconds = 600;
const frontend = 'http://app.example.test';
const { clock, advance } = strictClock();
let platform: TestPlatform;
let tenant: Tenant;
let ownOrigin: string;

beforeAll(async () => {
  platform = await startTestPlatform(
    // A long access-cache window, so that what another container would see can be shown here.
    { SESSION_SECONDS: String(sessionSeconds), CORS_ORIGINS: frontend, ACCESS_CACHE_SECONDS: '60' },
    { clock },
  );
  ownOrigin = new URL(platform.baseUrl).origin;
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform.stop();
});

const newPassword = 'Copper-Nebula-Thistle-5';
const anonymous = () => new ApiClient(platform.baseUrl);

/** Signs in through the browser login; the response and the session id of its cookie. */
async function browserLogin(
  username: string,
  password: string,
  headers: Record<string, string> = { origin: ownOrigin },
): Promise<{ response: ApiResponse; id: string }> {
  const response = await anonymous().post('/api/auth/session/', { username, password }, { headers });
  const id = /^sessionid=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return { response, id };
}

async function sessionOf(username: string, password: string): Promise<string> {
  const { response, id } = await browserLogin(username, password);
  expect(response.status).toBe(200);
  return id;
}

/** A client whose requests carry the cookie (and an Origin when given), optionally naming a site. */
function browser(id: string, origin?: string, site?: string) {
  const client = new ApiClient(platform.baseUrl, undefined, site);
  const headers = (extra: Record<string, string> = {}) => ({
    cookie: `theme=dark; sessionid=${id}`,
    ...(origin ? { origin } : {}),
    ...extra,
  });
  return {
    get: (path: string, extra?: Record<string, string>) => client.get(path, { headers: headers(extra) }),
    post: (path: string, body?: unknown, extra?: Record<string, string>) =>
      client.post(path, body, { headers: headers(extra) }),
    patch: (path: string, body?: unknown) => client.patch(path, body, { headers: headers() }),
    delete: (path: string) => client.delete(path, undefined, { headers: headers() }),
  };
}

describe('the browser login', () => {
  it('sets an HttpOnly, SameSite=Lax sessionid cookie on the root path, without Secure on local http', async () => {
    const { user, password } = await createUser(platform);
    const { response, id } = await browserLogin(user.username, password);
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBe(
      `sessionid=${id}; Max-Age=${sessionSeconds}; Path=/; HttpOnly; SameSite=Lax`,
    );
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.user).toMatchObject({ id: user.id, username: user.username });
    expect(Object.keys(response.body).sort()).toEqual(['expires_at', 'user']);
    const lifetime = Date.parse(response.body.expires_at) - clock().getTime();
    expect(lifetime).toBeGreaterThan((sessionSeconds - 60) * 1000);
    expect(lifetime).toBeLessThanOrEqual(sessionSeconds * 1000);
  });

  it('marks the cookie Secure when the request came over https', async () => {
    const { user, password } = await createUser(platform);
    const { response } = await browserLogin(user.username, password, { 'x-forwarded-proto': 'https' });
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('stores only a hash of the session id, with the expiry in the TTL attribute', async () => {
    const { user, password } = await createUser(platform);
    const id = await sessionOf(user.username, password);
    const { store } = platform.deps;
    const raw = await store.doc.send(
      new GetCommand({ TableName: store.table, Key: { PK: `BSESSION#${id}`, SK: 'SESSION' } }),
    );
    expect(raw.Item).toBeUndefined();
    const hash = createHash('sha256').update(id).digest('hex');
    const stored = await store.doc.send(
      new GetCommand({ TableName: store.table, Key: { PK: `BSESSION#${hash}`, SK: 'SESSION' } }),
    );
    expect(stored.Item).toMatchObject({ user_id: user.id, token_version: 0 });
    expect(JSON.stringify(stored.Item)).not.toContain(id);
    expect(stored.Item?.expires_at_epoch).toBe(Math.floor(Date.parse(stored.Item?.expires_at) / 1000));
  });

  it('refuses wrong credentials with 401 and sets no cookie', async () => {
    const { user } = await createUser(platform);
    const { response } = await browserLogin(user.username, 'Not-The-Right-One-77');
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a login posted from a foreign page (login forgery) with 403', async () => {
    const { user, password } = await createUser(platform);
    const { response } = await browserLogin(user.username, password, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      detail:
        'CSRF Failed: Origin checking failed - https://evil.example does not match any trusted origins.',
    });
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('lets a client that sends no Origin at all (not a browser) sign in', async () => {
    const { user, password } = await createUser(platform);
    const { response } = await browserLogin(user.username, password, {});
    expect(response.status).toBe(200);
  });
});

describe('the sessionid cookie authenticates', () => {
  let ownerSession: string;

  beforeAll(async () => {
    ownerSession = await sessionOf(tenant.ownerUser.username, 'Velvet-Harbor-Quill-42');
  });

  it('GET requests of every group without an Origin', async () => {
    const site = tenant.site.slug;
    const app = tenant.app.slug;
    const calls = [
      ['/api/cloud/users/me/', undefined],
      [`/api/cloud/organizations/${tenant.organization.slug}/invitations/`, undefined],
      [`/api/app/${app}/roles`, site],
      ['/api/secret-types/', site],
      [`/api/apps/${app}/datatables/`, site],
    ] as const;
    for (const [path, forSite] of calls) {
      const response = await browser(ownerSession, undefined, forSite).get(path);
      expect(response.status, path).toBe(200);
    }
    const me = await browser(ownerSession).get('/api/cloud/users/me/');
    expect(me.body.id).toBe(tenant.ownerUser.id);
  });

  it('gives the same answer as a bearer token without a cookie would: 401 for none', async () => {
    const response = await anonymous().get('/api/cloud/users/me/', { headers: { cookie: 'theme=dark' } });
    expect(response.status).toBe(401);
  });

  it('loses to a bearer token sent beside it', async () => {
    const { user, api } = await createUser(platform);
    const response = await api.get('/api/cloud/users/me/', {
      headers: { cookie: `sessionid=${ownerSession}` },
    });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(user.id);
  });

  it('refuses a forged, malformed or unknown session id with 401', async () => {
    const forged = randomBytes(32).toString('base64url');
    for (const id of [forged, 'not-a-session', `${ownerSession}x`, '']) {
      const response = await browser(id).get('/api/cloud/users/me/');
      expect(response.status, id).toBe(401);
      expect(response.body.detail).toBeDefined();
    }
    const data = await browser(forged, undefined, tenant.site.slug).get(`/api/app/${tenant.app.slug}/roles`);
    expect(data.status).toBe(401);
    expect(Object.keys(data.body).sort()).toEqual(['code', 'detail', 'error']);
  });

  it('is read where credentials are optional (a secret by key): a forged one is a 401 there too', async () => {
    const path = '/api/secrets/no-such-secret/';
    const site = tenant.site.slug;
    const forged = await browser(randomBytes(32).toString('base64url'), undefined, site).get(path);
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ error: 'Authentication required' });
    const signedIn = await browser(ownerSession, undefined, site).get(path);
    expect(signedIn.status).toBe(404);
  });

  it('is ignored on public routes, whatever it says', async () => {
    const response = await browser(randomBytes(32).toString('base64url')).get('/.well-known/jwks.json');
    expect(response.status).toBe(200);
  });
});

describe('cross-site request forgery', () => {
  let session: string;
  let userId: number;

  beforeAll(async () => {
    const created = await createUser(platform);
    userId = created.user.id;
    session = await sessionOf(created.user.username, created.password);
  });

  const newOrganization = () => ({ name: `Org ${randomBytes(3).toString('hex')}` });

  it('refuses an unsafe cookie request without Origin or Referer with 403 in the envelope of the group', async () => {
    const response = await browser(session).post('/api/cloud/organizations/', newOrganization());
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      detail: 'CSRF Failed: Origin checking failed - the request names no Origin or Referer.',
    });
    const roles = await browser(session, undefined, tenant.site.slug).post(
      `/api/app/${tenant.app.slug}/roles`,
      { name: 'Forged' },
    );
    expect(roles.status).toBe(403);
    expect(roles.body).toMatchObject({ error: 'Permission denied', code: 'csrf_failed' });
  });

  it('refuses a foreign Origin, a null Origin and a foreign Referer', async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `${frontend}.evil.example` },
      { referer: 'https://evil.example/page' },
    ]) {
      const response = await browser(session).post('/api/cloud/organizations/', newOrganization(), headers);
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(response.body.detail).toMatch(/^CSRF Failed: Origin checking failed/);
    }
    const foreign = browser(session, 'https://evil.example');
    for (const response of [
      await foreign.patch(`/api/cloud/users/${userId}/`, { first_name: 'Forged' }),
      await foreign.delete(
        `/api/cloud/organizations/${tenant.organization.slug}/invitations/${randomUUID()}/`,
      ),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.detail).toMatch(/^CSRF Failed: Origin checking failed/);
    }
  });

  it("accepts the API's own origin, a configured origin and a trusted Referer", async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: ownOrigin },
      { origin: frontend },
      { referer: `${frontend}/settings` },
    ]) {
      const response = await browser(session).post('/api/cloud/organizations/', newOrganization(), headers);
      expect(response.status, JSON.stringify(headers)).toBe(201);
    }
  });

  it('leaves bearer-token requests alone, whatever their Origin', async () => {
    const { api } = await createUser(platform);
    const response = await api.post('/api/cloud/organizations/', newOrganization(), {
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(201);
  });
});

describe('logout', () => {
  it('ends the session and clears the cookie', async () => {
    const { user, password } = await createUser(platform);
    const id = await sessionOf(user.username, password);
    const other = await sessionOf(user.username, password);
    const response = await browser(id, ownOrigin).delete('/api/auth/session/');
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toBe(
      'sessionid=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; HttpOnly; SameSite=Lax',
    );
    expect((await browser(id).get('/api/cloud/users/me/')).status).toBe(401);
    // Only this browser's session: the user's other sessions go on.
    expect((await browser(other).get('/api/cloud/users/me/')).status).toBe(200);
  });

  it('is refused from a foreign page, and the session goes on', async () => {
    const { user, password } = await createUser(platform);
    const id = await sessionOf(user.username, password);
    const response = await browser(id, 'https://evil.example').delete('/api/auth/session/');
    expect(response.status).toBe(403);
    expect((await browser(id).get('/api/cloud/users/me/')).status).toBe(200);
  });

  it('clears the cookie of a session that already ended', async () => {
    const response = await browser(randomBytes(32).toString('base64url'), ownOrigin).delete(
      '/api/auth/session/',
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toMatch(/^sessionid=; Max-Age=0;/);
  });
});

describe('what else ends sessions', () => {
  it("a password change from a browser ends the user's other sessions and tokens, not its own", async () => {
    const { user, password, api } = await createUser(platform);
    const current = await sessionOf(user.username, password);
    const other = await sessionOf(user.username, password);
    const change = await browser(current, ownOrigin).patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: newPassword,
    });
    expect(change.status).toBe(200);
    expect((await browser(current).get('/api/cloud/users/me/')).status).toBe(200);
    const ended = await browser(other).get('/api/cloud/users/me/');
    expect(ended.status).toBe(401);
    expect(ended.body).toEqual({ detail: 'The session has expired or ended: sign in again.' });
    expect((await api.get('/api/cloud/users/me/')).status).toBe(401);
    expect((await browserLogin(user.username, newPassword)).response.status).toBe(200);
  });

  it('a password change through a bearer token ends every session', async () => {
    const { user, password, api } = await createUser(platform);
    const session = await sessionOf(user.username, password);
    const change = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: newPassword,
    });
    expect(change.status).toBe(200);
    expect((await browser(session).get('/api/cloud/users/me/')).status).toBe(401);
  });

  it("a superuser's reset ends every session of the user", async () => {
    const { user, password } = await createUser(platform);
    const session = await sessionOf(user.username, password);
    const reset = await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { password: newPassword });
    expect(reset.status).toBe(200);
    expect((await browser(session).get('/api/cloud/users/me/')).status).toBe(401);
  });

  it('a deactivation refuses the session', async () => {
    const { user, password } = await createUser(platform);
    const session = await sessionOf(user.username, password);
    const off = await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false });
    expect(off.status).toBe(200);
    expect((await browser(session).get('/api/cloud/users/me/')).status).toBe(401);
  });

  it('a session newer than the user this container remembers has the user read again', async () => {
    const { user, password } = await createUser(platform);
    const kept = await sessionOf(user.username, password);
    const other = await sessionOf(user.username, password);
    // Remembered by this container's access cache (a sign-in clears it, so both sessions exist before).
    expect((await browser(kept).get('/api/cloud/users/me/')).status).toBe(200);
    // Another container changes the password from the `kept` session: this container's cache is not cleared.
    await updateUser(platform.deps, user.id, { password: newPassword });
    await keepCurrentBrowserSession(platform.deps, { cookie: `sessionid=${kept}` }, user.id);
    expect((await browser(kept).get('/api/cloud/users/me/')).status).toBe(200);
    expect((await browser(other).get('/api/cloud/users/me/')).status).toBe(401);
  });

  // Last: it moves the platform's clock.
  it('its expiry: an expired session is refused', async () => {
    const { user, password } = await createUser(platform);
    const session = await sessionOf(user.username, password);
    expect((await browser(session).get('/api/cloud/users/me/')).status).toBe(200);
    advance((sessionSeconds + 1) * 1000);
    const response = await browser(session).get('/api/cloud/users/me/');
    expect(response.status).toBe(401);
    expect(response.body.detail).toBe('The session has expired or ended: sign in again.');
  });
});
