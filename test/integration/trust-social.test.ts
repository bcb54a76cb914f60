import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: a tenant's own social apps may not vouch for accounts outside the tenant.
 * The attacker is a plain user who makes an organization and a site, and registers an `openid_connect` app whose
 * provider they run; that provider says whatever the attacker wants, `email_verified: true` included.
 */
let idp: IdentityProvider;
let platform: TestPlatform;
let attacker: Tenant;

beforeAll(async () => {
  idp = await startIdentityProvider();
  platform = await startTestPlatform({ SOCIAL_LOGIN_ALLOWED_HOSTS: idp.host }, {}, { dataPlane: false });
  attacker = await createTenant(platform);
  const app = await attacker.owner.post('/api/auth/social-apps/', {
    provider: 'openid_connect',
    provider_id: 'mine',
    name: 'My own provider',
    client_id: idp.clientId,
    secret: idp.clientSecret,
    settings: { server_url: idp.discoveryUrl },
  });
  expect(app.status).toBe(201);
});
afterAll(async () => {
  await platform.stop();
  await idp.stop();
});

/** Has the attacker's provider sign in an account claiming `email` (verified), through the attacker's site. */
async function signInClaiming(email: string) {
  const id = unique('forged');
  idp.accounts.set(id, { email, email_verified: true, given_name: 'Not', family_name: 'You' });
  const visitor = platform.api.forSite(attacker.site.slug);
  const started = await visitor.get(
    `/api/auth/mine/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`,
  );
  expect(started.status).toBe(200);
  const callback = await idp.authorize(started.body.authorization_url, id);
  return { id, answer: await visitor.post('/api/auth/mine/token/', callback) };
}

describe('cross-tenant trust suite: social login', () => {
  it("a tenant's own OpenID Connect provider cannot sign in as the platform's superuser", async () => {
    const { answer } = await signInClaiming('admin@example.com');
    expect(answer.status).toBe(400);
    expect(answer.body.access).toBeUndefined();
    expect(answer.body.detail).toMatch(/sign in and link this provider from your account/);
  });

  it("a tenant's own OpenID Connect provider cannot sign in as another tenant's user", async () => {
    const victim = await createTenant(platform);
    const me = await victim.owner.get('/api/cloud/users/me/');
    const { id, answer } = await signInClaiming(me.body.email);
    expect(answer.status).toBe(400);
    expect(answer.body.access).toBeUndefined();
    expect(answer.body.detail).toMatch(/sign in and link this provider from your account/);
    // Nothing was linked: the same provider account is refused again.
    const visitor = platform.api.forSite(attacker.site.slug);
    const started = await visitor.get(
      `/api/auth/mine/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`,
    );
    const again = await visitor.post(
      '/api/auth/mine/token/',
      await idp.authorize(started.body.authorization_url, id),
    );
    expect(again.status).toBe(400);
  });

  it('a brand-new address still signs up through the tenant provider', async () => {
    const { answer } = await signInClaiming(`${unique('new')}@example.net`);
    expect(answer.status).toBe(200);
    expect(answer.body.created).toBe(true);
  });

  it("a link started by one user cannot be finished by another caller (the state is the user's)", async () => {
    const { api: victim } = await createUser(platform);
    const started = await victim
      .forSite(attacker.site.slug)
      .get(`/api/auth/mine/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`);
    expect(started.status).toBe(200);
    const id = unique('thief');
    idp.accounts.set(id, { email: `${id}@example.net`, email_verified: true });
    const callback = await idp.authorize(started.body.authorization_url, id);
    // The state leaked to the attacker, who finishes it anonymously with their own provider account.
    const stolen = await platform.api.forSite(attacker.site.slug).post('/api/auth/mine/token/', callback);
    expect(stolen.status).toBe(400);
    expect(stolen.body.state).toBeDefined();
    const links = await victim.get('/api/auth/social-accounts/');
    expect(links.status).toBe(200);
    expect(links.body.results).toEqual([]);
  });
});
