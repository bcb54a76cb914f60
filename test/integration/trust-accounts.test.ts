import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteSocialAccount, listSocialAccounts } from '../../shared/social/accounts';
import { linkIdentity, userForIdentity } from '../../shared/social/identities';
import type { ApiClient } from '../support/client';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { latestToken, outboxFor } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: what an attacker who owns a tenant can keep of an account whose address
 * they do not own (docs/security.md, "What an account's first proof ends"), and whether another tenant can take a
 * user's lasting way in away (docs/social-login.md, "The last way in"). The attacker runs the OpenID provider of
 * their own site, which says whatever they want.
 */
let idp: IdentityProvider;
let platform: TestPlatform;
let attacker: Tenant;
let inviter: Tenant;

beforeAll(async () => {
  idp = await startIdentityProvider();
  platform = await startTestPlatform(
    {
      SOCIAL_LOGIN_ALLOWED_HOSTS: idp.host,
      SOCIAL_LOGIN_REDIRECTS_PER_MINUTE: '100000',
      PASSWORD_RESET_ANSWER_MS: '0',
    },
    {},
    { dataPlane: false },
  );
  attacker = await createTenant(platform);
  inviter = await createTenant(platform);
  await providerOf(attacker, 'mine');
  await providerOf(attacker, 'second');
});
afterAll(async () => {
  await platform?.stop();
  await idp?.stop();
});

/** An `openid_connect` app of the tenant's site, at the test's identity provider. */
async function providerOf(tenant: Tenant, providerId: string) {
  const app = await tenant.owner.post('/api/auth/social-apps/', {
    provider: 'openid_connect',
    provider_id: providerId,
    name: `Provider ${providerId}`,
    client_id: idp.clientId,
    secret: idp.clientSecret,
    settings: { server_url: idp.discoveryUrl },
  });
  expect(app.status).toBe(201);
}

/** An account at the identity provider claiming `email`. */
function providerAccount(email: string, verified = false): string {
  const id = unique('acct');
  idp.accounts.set(id, { email, email_verified: verified, given_name: 'Not', family_name: 'You' });
  return id;
}

/** Starts a login at `provider` of `tenant`'s site (a link when `api` is signed in) and finishes it as `accountId`. */
async function viaProvider(
  tenant: Tenant,
  provider: string,
  accountId: string,
  api: ApiClient = platform.api,
) {
  const client = api.forSite(tenant.site.slug);
  const started = await client.get(
    `/api/auth/${provider}/redirect/?redirect_uri=${encodeURIComponent(idp.redirectUri)}`,
  );
  expect(started.status).toBe(200);
  const callback = await idp.authorize(started.body.authorization_url, accountId);
  return { finish: () => client.post(`/api/auth/${provider}/token/`, callback) };
}

async function signIn(tenant: Tenant, provider: string, accountId: string) {
  return (await viaProvider(tenant, provider, accountId)).finish();
}

async function inviteAndAccept(email: string) {
  const invited = await inviter.owner.post(
    `/api/cloud/organizations/${inviter.organization.slug}/invitations/`,
    { invitee_identifier: email },
  );
  expect(invited.status).toBe(201);
  const accepted = await platform.api.post(`/api/cloud/invitations/${latestToken(platform, email)}/accept/`, {
    password: 'Copper-Nebula-Thistle-5',
    first_name: 'Real',
    last_name: 'Owner',
  });
  expect(accepted.status).toBe(200);
  return accepted.body.user.id as number;
}

describe('cross-tenant trust suite: an account squatted before its owner proved the address', () => {
  it('keeps no explicit link, session or token of the squatter once the owner accepts an invitation', async () => {
    const victim = `${unique('victim')}@example.com`;
    // The attacker's provider makes the account with an address nobody has claimed yet ...
    const squatting = providerAccount(victim);
    const first = await signIn(attacker, 'mine', squatting);
    expect(first.status).toBe(200);
    expect(first.body.created).toBe(true);
    const squatter = platform.api.withToken(first.body.access);
    // ... and, holding it, links a second provider account of their own explicitly.
    const ownAccount = providerAccount(`${unique('me')}@attacker.example`, true);
    const linked = await (await viaProvider(attacker, 'second', ownAccount, squatter)).finish();
    expect(linked.status).toBe(200);
    expect((await squatter.get('/api/auth/social-accounts/')).body.count).toBe(2);
    // An explicit link started before the acceptance, to be finished after it.
    const pending = await viaProvider(
      attacker,
      'second',
      providerAccount(`${unique('late')}@attacker.example`),
      squatter,
    );

    const ownerId = await inviteAndAccept(victim);
    expect(ownerId).toBe(first.body.user.id);

    // Neither provider account signs in as the owner any more.
    expect((await signIn(attacker, 'mine', squatting)).status).toBe(400);
    const viaExplicit = await signIn(attacker, 'second', ownAccount);
    expect(viaExplicit.body.user?.id).not.toBe(ownerId);
    // The squatter's tokens are dead, and the link they started before cannot be finished.
    expect((await squatter.get('/api/cloud/users/me/')).status).toBe(401);
    const refreshed = await platform.api.post('/api/auth/jwt/refresh/', { refresh: first.body.refresh });
    expect(refreshed.status).toBe(401);
    expect((await pending.finish()).status).not.toBe(200);
    // The owner's own list shows nothing of it, and the owner was told what was removed.
    const owner = await platform.api.login(victim, 'Copper-Nebula-Thistle-5');
    expect((await owner.get('/api/auth/social-accounts/')).body).toMatchObject({ count: 0, results: [] });
    const notice = outboxFor(platform, victim).find((eml) => eml.includes('Sign-in methods were removed'));
    expect(notice).toBeDefined();
    expect(notice).toContain(ownAccount);
    expect(notice).toContain('"second"');
    expect(notice).toContain('every session and sign-in token issued before');
  });

  it("ends the squatter's links and sessions when the owner resets the password through the e-mailed link", async () => {
    const email = `${unique('reset')}@example.com`;
    const squatting = providerAccount(email);
    const first = await signIn(attacker, 'mine', squatting);
    expect(first.status).toBe(200);
    expect((await platform.api.post('/api/auth/password/reset/', { email })).status).toBe(202);
    const eml = outboxFor(platform, email).find((message) => message.includes('Choose a new password'));
    const token = /#([A-Za-z0-9_-]{43})/.exec(eml ?? '')?.[1];
    expect(token).toBeDefined();
    const reset = await platform.api.post('/api/auth/password/reset/confirm/', {
      token,
      password: 'Copper-Nebula-Thistle-5',
    });
    expect(reset.status).toBe(200);
    expect((await signIn(attacker, 'mine', squatting)).status).toBe(400);
    expect((await platform.api.withToken(first.body.access).get('/api/cloud/users/me/')).status).toBe(401);
    const owner = await platform.api.login(email, 'Copper-Nebula-Thistle-5');
    expect((await owner.get('/api/auth/social-accounts/')).body.count).toBe(0);
  });

  it('keeps a link the owner attaches after proving the address', async () => {
    const email = `${unique('owner')}@example.com`;
    await signIn(attacker, 'mine', providerAccount(email));
    const ownerId = await inviteAndAccept(email);
    const owner = await platform.api.login(email, 'Copper-Nebula-Thistle-5');
    const mine = providerAccount(`${unique('mine')}@idp.example`, true);
    expect((await (await viaProvider(attacker, 'second', mine, owner)).finish()).status).toBe(200);
    // A second invitation (the address is proven already) ends nothing.
    await inviteAndAccept(email);
    const again = await signIn(attacker, 'second', mine);
    expect(again.status).toBe(200);
    expect(again.body.user.id).toBe(ownerId);
  });

  it('ends what was attached to an account a superuser made, at its first proof, and keeps it after', async () => {
    const email = `${unique('made')}@example.com`;
    const { api } = await createUser(platform, { email });
    const before = providerAccount(`${unique('before')}@idp.example`, true);
    expect((await (await viaProvider(attacker, 'second', before, api)).finish()).status).toBe(200);
    const ownerId = await inviteAndAccept(email);
    const signedIn = await signIn(attacker, 'second', before);
    expect(signedIn.body.user?.id).not.toBe(ownerId);
  });

  it('ends what was attached before when a provider the platform trusts proves the address', async () => {
    const email = `${unique('proved')}@example.com`;
    const squatting = providerAccount(email);
    const first = await signIn(attacker, 'mine', squatting);
    expect(first.status).toBe(200);
    const userId = first.body.user.id as number;
    // Google (a provider the platform trusts) vouches for the address: the sign-in attaches to the account.
    const google = { site: inviter.site.slug, providerKey: 'google', appId: 1 };
    const identity = {
      subject: unique('g'),
      email,
      emailVerified: true,
      firstName: 'Real',
      lastName: 'Owner',
    };
    const signedIn = await userForIdentity(platform.deps, google, { identity, trusted: true });
    expect(signedIn).toMatchObject({
      created: false,
      proved: true,
      user: { id: userId, email_verified: true },
    });
    // The squatter's provider account and tokens no longer count; the trusted link does.
    expect((await platform.api.withToken(first.body.access).get('/api/cloud/users/me/')).status).toBe(401);
    const links = await listSocialAccounts(platform.deps, userId);
    expect(links.map((link) => link.provider)).toEqual(['google']);
    expect((await signIn(attacker, 'mine', squatting)).status).toBe(400);
  });
});

describe('cross-tenant trust suite: the last way in', () => {
  it("another tenant's link is not a lasting way in: unlinking the other one is refused", async () => {
    const friendly = await createTenant(platform);
    await providerOf(friendly, 'friendly');
    const email = `${unique('only')}@idp.example`;
    // A provider-only user: made by a first sign-in at the friendly site, then linked at the attacker's site.
    const created = await signIn(friendly, 'friendly', providerAccount(email, true));
    expect(created.status).toBe(200);
    const user = platform.api.withToken(created.body.access);
    const other = await (await viaProvider(attacker, 'mine', providerAccount(email, true), user)).finish();
    expect(other.status).toBe(200);
    const links = (await user.get('/api/auth/social-accounts/')).body.results as {
      id: number;
      site: string;
    }[];
    const friendlyLink = links.find((link) => link.site === friendly.site.slug);
    // The attacker's site could be deleted by its owner, and the link with it: it does not count.
    const refused = await user.delete(`/api/auth/social-accounts/${friendlyLink?.id}/`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/set a password/);
    expect((await user.get('/api/auth/social-accounts/')).body.count).toBe(2);
  });

  it("a link through a provider the platform trusts, with the account's own address, is one", async () => {
    const email = `${unique('trusted')}@idp.example`;
    const google = { site: inviter.site.slug, providerKey: 'google', appId: 1 };
    const identity = { subject: unique('g'), email, emailVerified: true, firstName: 'A', lastName: 'B' };
    const { user } = await userForIdentity(platform.deps, google, { identity, trusted: true });
    const mine = { site: attacker.site.slug, providerKey: 'mine', appId: 2 };
    const other = { subject: unique('m'), email, emailVerified: true, firstName: 'A', lastName: 'B' };
    await linkIdentity(platform.deps, mine, { identity: other, trusted: false }, user.id);
    const links = await listSocialAccounts(platform.deps, user.id);
    expect(links.map((link) => link.provider).sort()).toEqual(['google', 'mine']);
    // The tenant's link may go: the trusted one still lets the user in.
    await deleteSocialAccount(
      platform.deps,
      user.id,
      links.find((link) => link.provider === 'mine')?.id as number,
    );
    // And the trusted one is then the last way in: it stays.
    const [last] = await listSocialAccounts(platform.deps, user.id);
    expect(last?.provider).toBe('google');
    await expect(deleteSocialAccount(platform.deps, user.id, last?.id as number)).rejects.toMatchObject({
      status: 409,
      code: 'last_sign_in_method',
    });
  });

  it('two parallel unlinks of the last two lasting links cannot both succeed', async () => {
    const email = `${unique('two')}@idp.example`;
    const identity = (subject: string) => ({
      subject,
      email,
      emailVerified: true,
      firstName: 'A',
      lastName: 'B',
    });
    const google = { site: inviter.site.slug, providerKey: 'google', appId: 1 };
    const github = { site: attacker.site.slug, providerKey: 'github', appId: 3 };
    const { user } = await userForIdentity(platform.deps, google, {
      identity: identity(unique('g')),
      trusted: true,
    });
    await userForIdentity(platform.deps, github, { identity: identity(unique('h')), trusted: true });
    const links = await listSocialAccounts(platform.deps, user.id);
    expect(links).toHaveLength(2);
    const answers = await Promise.allSettled(
      links.map((link) => deleteSocialAccount(platform.deps, user.id, link.id)),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await listSocialAccounts(platform.deps, user.id)).toHaveLength(1);
  });
});
