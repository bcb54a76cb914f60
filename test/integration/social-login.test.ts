import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log';
import { socialKeys } from '../../shared/social/model';
import type { ApiClient } from '../support/client';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

/** A server on 127.0.0.1 that answers every request with `answer`. */
async function tinyServer(
  answer: (port: number) => { status: number; headers?: Record<string, string>; body?: string },
) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  server.on('request', (_req, res) => {
    const { status, headers, body } = answer(port);
    res.writeHead(status, headers).end(body);
  });
  return {
    host: `127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every log line the platform writes, unredacted: what the code itself hands the logger. */
const logLines: string[] = [];
function recordingLogger(base: Record<string, unknown> = {}): Logger {
  const write = (message: string, fields?: Record<string, unknown>) => {
    logLines.push(JSON.stringify({ message, ...base, ...fields }));
  };
  return {
    debug: write,
    info: write,
    warn: write,
    error: write,
    child: (fields) => recordingLogger({ ...base, ...fields }),
  };
}

let idp: IdentityProvider;
let idpUserInfo: IdentityProvider;
let redirector: Awaited<ReturnType<typeof tinyServer>>;
let metadataDiscovery: Awaited<ReturnType<typeof tinyServer>>;
let platform: TestPlatform;
let tenant: Tenant;
let visitor: ApiClient;

beforeAll(async () => {
  idp = await startIdentityProvider();
  idpUserInfo = await startIdentityProvider({ idTokenClaims: false });
  redirector = await tinyServer(() => ({ status: 302, headers: { location: idp.discoveryUrl } }));
  metadataDiscovery = await tinyServer((port) => {
    const issuer = `http://127.0.0.1:${port}`;
    const document = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: 'http://169.254.169.254/latest/meta-data/',
      jwks_uri: `${issuer}/jwks`,
    };
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(document) };
  });
  const allowed = [idp.host, idpUserInfo.host, redirector.host, metadataDiscovery.host];
  platform = await startTestPlatform(
    // Every test here starts logins from one address: the limit of starts is tested in social-limits.test.ts.
    {
      LOG_LEVEL: 'debug',
      SOCIAL_LOGIN_ALLOWED_HOSTS: allowed.join(','),
      SOCIAL_LOGIN_REDIRECTS_PER_MINUTE: '100000',
    },
    { log: recordingLogger() },
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
  await Promise.all([idp.stop(), idpUserInfo.stop(), redirector.stop(), metadataDiscovery.stop()]);
});
beforeEach(async () => {
  tenant = await createTenant(platform);
  visitor = platform.api.forSite(tenant.site.slug);
  const app = await tenant.owner.post('/api/auth/social-apps/', {
    provider: 'openid_connect',
    provider_id: 'corp',
    name: 'Corp SSO',
    client_id: idp.clientId,
    secret: idp.clientSecret,
    settings: { server_url: idp.discoveryUrl },
  });
  expect(app.status).toBe(201);
});

const redirectPath = (provider = 'corp') =>
  `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`;

/** An account at the identity provider, with a fresh e-mail address unless one is given. */
function account(fields: { email?: string; email_verified?: boolean } = {}): { id: string; email: string } {
  const id = unique('acct');
  const email = fields.email ?? `${id}@idp.example`;
  idp.accounts.set(id, {
    email,
    email_verified: fields.email_verified ?? true,
    given_name: 'Ada',
    family_name: 'Lovelace',
  });
  return { id, email };
}

/** Starts a login and has the identity provider sign `accountId` in: the callback's code and state. */
async function authorize(accountId: string) {
  const started = await visitor.get(redirectPath());
  expect(started.status).toBe(200);
  return idp.authorize(started.body.authorization_url, accountId);
}

async function login(accountId: string) {
  return visitor.post('/api/auth/corp/token/', await authorize(accountId));
}

/** A signed-in user links the provider account `accountId` to their account: the token exchange's answer. */
async function linkAs(api: ApiClient, accountId: string, provider = 'corp') {
  const signedIn = api.forSite(tenant.site.slug);
  const started = await signedIn.get(redirectPath(provider));
  expect(started.status).toBe(200);
  expect(started.body.link).toBe(true);
  const callback = await idp.authorize(started.body.authorization_url, accountId);
  return signedIn.post(`/api/auth/${provider}/token/`, callback);
}

describe('GET /api/auth/{provider}/redirect/', () => {
  it('answers the authorization URL with state, PKCE S256 and a nonce', async () => {
    const response = await visitor.get(redirectPath());
    expect(response.status).toBe(200);
    const url = new URL(response.body.authorization_url);
    expect(`${url.origin}${url.pathname}`).toMatch(new RegExp(`^${idp.issuer}/`));
    expect(url.searchParams.get('client_id')).toBe(idp.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(idp.redirectUri);
    expect(url.searchParams.get('state')).toBe(response.body.state);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('nonce')).toMatch(/^[\w-]{32}$/);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(response.body.expires_in).toBe(600);
  });

  it('answers 404 for a provider the site does not have', async () => {
    const response = await visitor.get(redirectPath('nobody'));
    expect(response.status).toBe(404);
  });
});

describe('POST /api/auth/{provider}/token/', () => {
  it('creates a user on the first login and answers our tokens and the user', async () => {
    const { id, email } = account();
    const response = await login(id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      access: expect.any(String),
      refresh: expect.any(String),
      created: true,
      user: { id: expect.any(Number), email, first_name: 'Ada', last_name: 'Lovelace' },
    });
    const signedIn = platform.api.withToken(response.body.access).forSite(tenant.site.slug);
    expect((await signedIn.get('/api/auth/social-apps/')).status).toBe(200);
    const refreshed = await platform.api.post('/api/auth/jwt/refresh/', { refresh: response.body.refresh });
    expect(refreshed.status).toBe(200);
  });

  it('signs the same user in on the second login', async () => {
    const { id } = account();
    const first = await login(id);
    const second = await login(id);
    expect(second.status).toBe(200);
    expect(second.body.created).toBe(false);
    expect(second.body.user.id).toBe(first.body.user.id);
  });

  it('asks an account with a second factor for it too: 401 mfa_required, then a recovery code signs in', async () => {
    const { id } = account();
    const first = await login(id);
    const signedIn = platform.api.withToken(first.body.access);
    const { secret } = (await signedIn.post('/api/auth/mfa/totp/')).body;
    // The code an authenticator app shows now (a step boundary in between is within the window of one step).
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    const confirmed = await signedIn.post('/api/auth/mfa/totp/confirm/', { code });
    expect(confirmed.status).toBe(200);
    const second = await login(id);
    expect(second.status).toBe(401);
    expect(second.body).toMatchObject({ code: 'mfa_required', methods: ['totp', 'recovery_code'] });
    expect(second.body.access).toBeUndefined();
    const finished = await visitor.post('/api/auth/mfa/authenticate/', {
      mfa_token: second.body.mfa_token,
      recovery_code: confirmed.body.recovery_codes[0],
    });
    expect(finished.status).toBe(200);
    expect(finished.body.user.id).toBe(first.body.user.id);
    const claims = JSON.parse(Buffer.from(finished.body.access.split('.')[1], 'base64url').toString());
    expect(claims.amr).toEqual(['fed', 'recovery_code', 'mfa']);
    // A browser-driven provider login sets no cookie before the second factor.
    const browser = await visitor.post(
      '/api/auth/corp/token/',
      { ...(await authorize(id)), session: true },
      { headers: { origin: new URL(platform.baseUrl).origin } },
    );
    expect(browser.status).toBe(401);
    expect(browser.body.code).toBe('mfa_required');
    expect(browser.headers.get('set-cookie')).toBeNull();
  });

  it("refuses to attach a site's own provider account to the existing user of an address, even a verified one", async () => {
    const email = `${unique('known')}@example.com`;
    await createUser(platform, { email });
    const response = await login(account({ email, email_verified: true }).id);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      detail:
        'An account with this e-mail address already exists: sign in and link this provider from your account.',
    });
  });

  it('refuses to attach an unverified e-mail address to an existing user', async () => {
    const email = `${unique('victim')}@example.com`;
    await createUser(platform, { email });
    const { id } = account({ email, email_verified: false });
    const response = await login(id);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/sign in and link this provider from your account/);
    // Nothing was linked: the next attempt is refused the same way.
    expect((await login(id)).status).toBe(400);
  });

  it('creates exactly one user when two first logins of one account race', async () => {
    const { id } = account();
    const [a, b] = await Promise.all([authorize(id), authorize(id)]);
    const answers = await Promise.all([
      visitor.post('/api/auth/corp/token/', a),
      visitor.post('/api/auth/corp/token/', b),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers[0]?.body.user.id).toBe(answers[1]?.body.user.id);
    expect(answers.filter((answer) => answer.body.created)).toHaveLength(1);
  });

  it('refuses an unknown state, and a state used twice', async () => {
    const { code, state } = await authorize(account().id);
    const unknown = await visitor.post('/api/auth/corp/token/', { code, state: 'not-a-state' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.state).toEqual(['The login state is unknown, already used or expired.']);
    expect((await visitor.post('/api/auth/corp/token/', { code, state })).status).toBe(200);
    expect((await visitor.post('/api/auth/corp/token/', { code, state })).body.state).toBeDefined();
  });

  it('refuses a state started for another provider', async () => {
    await tenant.owner.post('/api/auth/social-apps/', {
      provider: 'openid_connect',
      provider_id: 'other',
      name: 'Other',
      client_id: idp.clientId,
      secret: idp.clientSecret,
      settings: { server_url: idp.discoveryUrl },
    });
    const { code, state } = await authorize(account().id);
    const response = await visitor.post('/api/auth/other/token/', { code, state });
    expect(response.status).toBe(400);
    expect(response.body.state).toBeDefined();
  });

  it('refuses a code the provider did not issue', async () => {
    const { state } = await authorize(account().id);
    const response = await visitor.post('/api/auth/corp/token/', { code: 'forged-code', state });
    expect(response.status).toBe(400);
    expect(response.body.code).toEqual(['The provider refused the code.']);
  });

  it("answers 502, not a refused code, when the provider refuses the app's own client secret", async () => {
    await tenant.owner.post('/api/auth/social-apps/', {
      provider: 'openid_connect',
      provider_id: 'misconfigured',
      name: 'Wrong secret',
      client_id: idp.clientId,
      secret: 'not-the-secret',
      settings: { server_url: idp.discoveryUrl },
    });
    const started = await visitor.get(
      `/api/auth/misconfigured/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`,
    );
    const callback = await idp.authorize(started.body.authorization_url, account().id);
    const response = await visitor.post('/api/auth/misconfigured/token/', callback);
    expect(response.status).toBe(502);
    expect(response.body.detail).toMatch(/client id or secret/);
  });

  it('refuses an ID token whose nonce is not the one of this login', async () => {
    const { code, state } = await authorize(account().id);
    await platform.deps.store.doc.send(
      new UpdateCommand({
        TableName: platform.deps.store.table,
        Key: socialKeys.loginState(state),
        UpdateExpression: 'SET nonce = :other',
        ExpressionAttributeValues: { ':other': 'another-nonce' },
      }),
    );
    const response = await visitor.post('/api/auth/corp/token/', { code, state });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/nonce/);
  });

  it('reads the e-mail from the user-info endpoint when the ID token carries none', async () => {
    await tenant.owner.post('/api/auth/social-apps/', {
      provider: 'openid_connect',
      provider_id: 'userinfo',
      name: 'User info',
      client_id: idpUserInfo.clientId,
      secret: idpUserInfo.clientSecret,
      settings: { server_url: idpUserInfo.discoveryUrl },
    });
    const id = unique('acct');
    const email = `${id}@idp.example`;
    idpUserInfo.accounts.set(id, { email, email_verified: true, given_name: 'Grace', family_name: 'Hopper' });
    const started = await visitor.get(
      `/api/auth/userinfo/redirect/?redirect_uri=${encodeURIComponent(idpUserInfo.redirectUri)}`,
    );
    const callback = await idpUserInfo.authorize(started.body.authorization_url, id);
    const response = await visitor.post('/api/auth/userinfo/token/', callback);
    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ email, first_name: 'Grace', last_name: 'Hopper' });
  });

  it('requires both code and state', async () => {
    const response = await visitor.post('/api/auth/corp/token/', {});
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: ['This field is required.'], state: ['This field is required.'] });
  });
});

describe('a provider login driven from a browser (`session: true`)', () => {
  const ownOrigin = () => new URL(platform.baseUrl).origin;

  it('also starts a browser session: the sessionid cookie authenticates the signed-in user', async () => {
    const { id, email } = account();
    const callback = await authorize(id);
    const response = await visitor.post(
      '/api/auth/corp/token/',
      { ...callback, session: true },
      { headers: { origin: ownOrigin() } },
    );
    expect(response.status).toBe(200);
    expect(response.body.user.email).toBe(email);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^sessionid=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
    const sessionId = /^sessionid=([^;]*)/.exec(cookie)?.[1];
    const me = await visitor.get('/api/cloud/users/me/', { headers: { cookie: `sessionid=${sessionId}` } });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
  });

  it('refuses a browser login started from a foreign origin, before the code is spent', async () => {
    const { id } = account();
    const callback = await authorize(id);
    const forged = await visitor.post(
      '/api/auth/corp/token/',
      { ...callback, session: true },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie')).toBeNull();
    const honest = await visitor.post('/api/auth/corp/token/', callback);
    expect(honest.status).toBe(200);
  });

  it('sets no cookie without `session`', async () => {
    const { id } = account();
    const response = await login(id);
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBeNull();
  });
});

describe('an account a provider login made with an address the provider did not verify', () => {
  it('loses that provider link when the owner of the address accepts an invitation to it (no pre-hijacking)', async () => {
    const victim = `${unique('victim')}@example.com`;
    const squatter = account({ email: victim, email_verified: false });
    const first = await login(squatter.id);
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(true);
    const invited = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      {
        invitee_identifier: victim,
      },
    );
    expect(invited.status).toBe(201);
    // The token only the invitation e-mail carries (not the uuid the organization sees).
    const token = latestToken(platform, victim);
    const accepted = await platform.api.post(`/api/cloud/invitations/${token}/accept/`, {
      password: 'Copper-Nebula-Thistle-5',
      first_name: 'Real',
      last_name: 'Owner',
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.user.id).toBe(first.body.user.id);
    // The provider account no longer signs in as the owner's account, and its earlier tokens are dead.
    const again = await login(squatter.id);
    expect(again.status).toBe(400);
    const old = await platform.api.withToken(first.body.access).get('/api/cloud/users/me/');
    expect(old.status).toBe(401);
  });

  it("ends it too when the site's own provider said the address was verified (its word is not trusted)", async () => {
    const email = `${unique('owner')}@example.com`;
    const squatter = account({ email, email_verified: true });
    const first = await login(squatter.id);
    expect(first.status).toBe(200);
    const invited = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      { invitee_identifier: email },
    );
    expect(invited.status).toBe(201);
    const accepted = await platform.api.post(
      `/api/cloud/invitations/${latestToken(platform, email)}/accept/`,
      {
        password: 'Copper-Nebula-Thistle-5',
        first_name: 'Real',
        last_name: 'Owner',
      },
    );
    expect(accepted.status).toBe(200);
    expect((await login(squatter.id)).status).toBe(400);
    const owner = await platform.api.login(email, 'Copper-Nebula-Thistle-5');
    expect((await owner.get('/api/auth/social-accounts/')).body.results).toEqual([]);
  });

  it('ends a link the account made itself before the address was proven too (trust-accounts.test.ts)', async () => {
    const email = `${unique('owner')}@example.com`;
    const { api } = await createUser(platform, { email });
    const own = account({ email: `${unique('other')}@idp.example` });
    const linked = await linkAs(api, own.id);
    expect(linked.status).toBe(200);
    const invited = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      { invitee_identifier: email },
    );
    expect(invited.status).toBe(201);
    const token = latestToken(platform, email);
    const accepted = await platform.api.post(`/api/cloud/invitations/${token}/accept/`, {
      password: 'Copper-Nebula-Thistle-5',
      first_name: 'Real',
      last_name: 'Owner',
    });
    expect(accepted.status).toBe(200);
    const again = await login(own.id);
    expect(again.status).toBe(200);
    expect(again.body.user.id).not.toBe(linked.body.user.id);
    expect(again.body.created).toBe(true);
  });
});

describe('PRE_USER_CREATE on the first sign-in', () => {
  /** Subscribes the shipped example subscriber that refuses every address outside example.org. */
  async function subscribeVeto(): Promise<number> {
    const fn = await tenant.owner.post(`/api/apps/${tenant.app.slug}/functions/`, {
      name: unique('Veto'),
      target: 'veto.mjs',
    });
    expect(fn.status).toBe(201);
    const sub = await tenant.owner.post('/api/cloud/events/PRE_USER_CREATE/subscribe/', {
      function_id: fn.body.data.id,
    });
    expect(sub.status).toBe(200);
    return fn.body.data.id;
  }

  it("blocks the user a provider login would create: 422 with the subscriber's message, and no user exists", async () => {
    const functionId = await subscribeVeto();
    const { id, email } = account();
    const response = await login(id);
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      detail: 'Only @example.org addresses may sign up.',
      event: 'PRE_USER_CREATE',
      function_id: functionId,
    });
    const users = await platform.adminApi.get(`/api/cloud/users/?search=${encodeURIComponent(email)}`);
    expect(JSON.stringify(users.body)).not.toContain(email);
  });

  it('lets an address the subscriber accepts sign up', async () => {
    await subscribeVeto();
    const { id, email } = account({ email: `${unique('ok')}@example.org` });
    const response = await login(id);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ created: true, user: { email } });
  });
});

describe('provider URLs are checked again before each call', () => {
  /** An OpenID Connect app with this server_url, created through the API (checked on write). */
  async function appWith(serverUrl: string, providerId: string) {
    const created = await tenant.owner.post('/api/auth/social-apps/', {
      provider: 'openid_connect',
      provider_id: providerId,
      name: providerId,
      client_id: 'c',
      secret: 's',
      settings: { server_url: serverUrl },
    });
    expect(created.status).toBe(201);
    return created.body.data.id as number;
  }

  /** Changes a stored app's server_url behind the API's back, as if its address had changed since the write. */
  async function storeServerUrl(id: number, serverUrl: string) {
    const { store } = platform.deps;
    const key = socialKeys.app(tenant.site.slug, id);
    const { Item } = await store.doc.send(new GetCommand({ TableName: store.table, Key: key }));
    await store.doc.send(
      new PutCommand({ TableName: store.table, Item: { ...Item, settings: { server_url: serverUrl } } }),
    );
  }

  it('does not follow a redirect of the discovery document', async () => {
    await appWith(`http://${redirector.host}/.well-known/openid-configuration`, 'redirecting');
    const response = await visitor.get(redirectPath('redirecting'));
    expect(response.status).toBe(502);
    expect(response.body.detail).toMatch(/redirect/);
  });

  it('refuses a discovered endpoint at the metadata address', async () => {
    await appWith(`http://${metadataDiscovery.host}/.well-known/openid-configuration`, 'metadata');
    const started = await visitor.get(redirectPath('metadata'));
    expect(started.status).toBe(502);
    expect(started.body.detail).toMatch(/token_endpoint/);
  });

  it('refuses a stored loopback server_url outside the allowlist at login time', async () => {
    const id = await appWith(idp.discoveryUrl, 'loopback');
    await storeServerUrl(id, 'https://127.0.0.1:9/.well-known/openid-configuration');
    const response = await visitor.get(redirectPath('loopback'));
    expect(response.status).toBe(502);
    expect(response.body.detail).toMatch(/loopback/);
  });
});

describe('explicit linking: a signed-in user starts the login', () => {
  it('links the provider account to the signed-in user, who then signs in with it', async () => {
    const email = `${unique('known')}@example.com`;
    const { api, user } = await createUser(platform, { email });
    // The provider's address is the account's own: linking by e-mail would be refused, linking explicitly is not.
    const own = account({ email, email_verified: true });
    const linked = await linkAs(api, own.id);
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({
      created: false,
      user: { id: user.id },
      social_account: { provider: 'corp', site: tenant.site.slug, uid: own.id, email },
    });
    const signedIn = await login(own.id);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(user.id);
    // Linking it again is harmless.
    expect((await linkAs(api, own.id)).status).toBe(200);
    const links = await api.get('/api/auth/social-accounts/');
    expect(links.status).toBe(200);
    expect(links.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(links.body.results).toEqual([
      {
        id: linked.body.social_account.id,
        provider: 'corp',
        site: tenant.site.slug,
        uid: own.id,
        email,
        created: expect.stringMatching(/Z$/),
      },
    ]);
  });

  it('refuses a provider account already linked to another user (409), and changes nothing', async () => {
    const taken = account();
    const first = await login(taken.id);
    expect(first.status).toBe(200);
    const { api } = await createUser(platform);
    const response = await linkAs(api, taken.id);
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ detail: 'This provider account is already linked to another user.' });
    expect((await api.get('/api/auth/social-accounts/')).body.results).toEqual([]);
    expect((await login(taken.id)).body.user.id).toBe(first.body.user.id);
  });

  it("refuses to link a superuser's account to a site's own OpenID Connect provider", async () => {
    const response = await platform.adminApi.forSite(tenant.site.slug).get(redirectPath());
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/superuser/);
  });

  it('answers anonymous callers a sign-in, not a link', async () => {
    const response = await visitor.get(redirectPath());
    expect(response.body.link).toBe(false);
  });
});

describe('/api/auth/social-accounts/', () => {
  it('needs a signed-in user', async () => {
    expect((await platform.api.get('/api/auth/social-accounts/')).status).toBe(401);
    expect((await platform.api.delete('/api/auth/social-accounts/1/')).status).toBe(401);
  });

  it("unlinks one of the caller's links (204); the provider account then signs in as a new user", async () => {
    const { api, user } = await createUser(platform);
    const own = account();
    const linked = await linkAs(api, own.id);
    const removed = await api.delete(`/api/auth/social-accounts/${linked.body.social_account.id}/`);
    expect(removed.status).toBe(204);
    expect((await api.get('/api/auth/social-accounts/')).body.results).toEqual([]);
    const again = await login(own.id);
    expect(again.status).toBe(200);
    expect(again.body.user.id).not.toBe(user.id);
    expect(again.body.created).toBe(true);
  });

  it("answers 404 for another user's link and for an unknown id", async () => {
    const first = await login(account().id);
    const mine = await platform.api.withToken(first.body.access).get('/api/auth/social-accounts/');
    const id = mine.body.results[0].id;
    const { api: other } = await createUser(platform);
    const response = await other.delete(`/api/auth/social-accounts/${id}/`);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not found.' });
    expect((await other.delete('/api/auth/social-accounts/999999999/')).status).toBe(404);
    expect((await login(account().id)).status).toBe(200);
  });

  it('refuses to unlink the last lasting way to sign in (no password, no link a trusted provider made): 409', async () => {
    const first = await login(account().id);
    const api = platform.api.withToken(first.body.access);
    const mine = await api.get('/api/auth/social-accounts/');
    expect(mine.body.count).toBe(1);
    const response = await api.delete(`/api/auth/social-accounts/${mine.body.results[0].id}/`);
    expect(response.status).toBe(409);
    expect(response.body.detail).toMatch(/without a lasting way to sign in/);
    // A second link of a site's own provider is no lasting way in either (trust-accounts.test.ts): neither goes.
    const second = await linkAs(api, account().id);
    expect(second.status).toBe(200);
    const ids = (await api.get('/api/auth/social-accounts/')).body.results.map((r: { id: number }) => r.id);
    expect(ids).toHaveLength(2);
    const answers = await Promise.all(
      ids.map((id: number) => api.delete(`/api/auth/social-accounts/${id}/`)),
    );
    expect(answers.map((a) => a.status)).toEqual([409, 409]);
    expect((await api.get('/api/auth/social-accounts/')).body.count).toBe(2);
  });
});

describe('linked accounts and the delete guard', () => {
  it('refuses to delete the app while a user signs in with it', async () => {
    await login(account().id);
    const apps = await tenant.owner.get('/api/auth/social-apps/');
    const id = apps.body.data[0].id;
    const response = await tenant.owner.delete(`/api/auth/social-apps/${id}/`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, active_users: 1 });
  });
});

describe('logs', () => {
  it('never carry the client secret, the code or any token of a login', async () => {
    logLines.length = 0;
    const callback = await authorize(account().id);
    const response = await visitor.post('/api/auth/corp/token/', callback);
    expect(response.status).toBe(200);
    expect(logLines.length).toBeGreaterThan(0);
    const written = logLines.join('\n');
    for (const value of [idp.clientSecret, callback.code, response.body.access, response.body.refresh])
      expect(written).not.toContain(value);
  });
});

// Last: it locks this client address out of provider sign-in.
describe('throttling', () => {
  it('answers 429 once a client address has failed too many exchanges', async () => {
    let last = 0;
    for (let attempt = 0; attempt < 60 && last !== 429; attempt++)
      last = (await visitor.post('/api/auth/corp/token/', { code: 'x', state: `bad-${attempt}` })).status;
    expect(last).toBe(429);
  });
});
