import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: the hosted pages (docs/pages.md). A page shows one site's or one
 * organization's things and nobody else's: a site's sign-in page never another site's providers or name, a
 * `return_to` only the origins allowed for that site, an invitation page only its own organization, the account
 * page only the signed-in user. Every page, its error pages included, forbids framing and inline script.
 */

interface PageTenant {
  slug: string;
  siteName: string;
  organization: { slug: string; name: string };
  provider: string;
  owner: Awaited<ReturnType<typeof createUser>>;
}

let platform: TestPlatform;
let a: PageTenant;
let b: PageTenant;
const suffix = randomBytes(4).toString('hex');
const slugA = `pages-a-${suffix}`;
const slugB = `pages-b-${suffix}`;

/** A tenant with a site of a chosen slug (the allowlist names it at start) and a GitHub app of a telling name. */
async function pageTenant(slug: string, label: string): Promise<PageTenant> {
  const owner = await createUser(platform, { first_name: `Owner${label}`, last_name: 'Person' });
  const organization = await owner.api.post('/api/cloud/organizations/', { name: unique(`Org${label}`) });
  expect(organization.status).toBe(201);
  const siteName = `Site ${label} ${suffix}`;
  const site = await owner.api.post(`/api/cloud/organizations/${organization.body.slug}/sites/`, {
    name: siteName,
    slug,
  });
  expect(site.status).toBe(201);
  const provider = `Provider ${label} ${suffix}`;
  const app = await owner.api
    .forSite(slug)
    .post('/api/auth/social-apps/', { provider: 'github', name: provider, client_id: 'id', secret: 's' });
  expect(app.status).toBe(201);
  return {
    slug,
    siteName: site.body.name,
    organization: { slug: organization.body.slug, name: organization.body.name },
    provider,
    owner,
  };
}

beforeAll(async () => {
  platform = await startTestPlatform({
    PAGES_RETURN_ORIGINS: `${slugA}=https://app-a.example,${slugB}=https://app-b.example`,
  });
  a = await pageTenant(slugA, 'A');
  b = await pageTenant(slugB, 'B');
});
afterAll(async () => {
  await platform.stop();
});

/** A page as a browser gets it (no redirect followed), with an optional session cookie and headers. */
async function page(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${platform.baseUrl}${path}`, { headers, redirect: 'manual' });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

async function sessionCookie(login: string, password: string): Promise<string> {
  const response = await fetch(`${platform.baseUrl}/api/auth/session/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(platform.baseUrl).origin },
    body: JSON.stringify({ username: login, password }),
  });
  expect(response.status).toBe(200);
  const id = /^sessionid=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  expect(id).toBeTruthy();
  return `sessionid=${id}`;
}

async function invite(tenant: PageTenant, email: string): Promise<string> {
  const created = await tenant.owner.api.post(
    `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
    { invitee_identifier: email },
  );
  expect(created.status).toBe(201);
  return latestToken(platform, email);
}

describe('cross-tenant trust suite: hosted pages', () => {
  it("a site's sign-in page shows its own name and providers, never another site's", async () => {
    for (const [own, other] of [
      [a, b],
      [b, a],
    ] as const) {
      // Signed in as the other site's owner changes nothing of what the page shows of the site.
      const cookie = await sessionCookie(other.owner.user.username, other.owner.password);
      for (const headers of [{}, { cookie }] as Record<string, string>[]) {
        const answer = await page(`/sign-in?site=${own.slug}`, headers);
        expect(answer.status).toBe(200);
        expect(answer.html).toContain(own.siteName);
        expect(answer.html).toContain(own.provider);
        expect(answer.html).not.toContain(other.siteName);
        expect(answer.html).not.toContain(other.provider);
        expect(answer.html).not.toContain(other.slug);
      }
    }
  });

  it("the sign-in page never sends a visitor to a site's own provider without a click", async () => {
    const owner = await createUser(platform);
    const organization = await owner.api.post('/api/cloud/organizations/', { name: unique('OrgAuto') });
    const site = await owner.api.post(`/api/cloud/organizations/${organization.body.slug}/sites/`, {
      name: unique('Auto'),
    });
    expect(site.status).toBe(201);
    const siteApi = owner.api.forSite(site.body.slug);
    // The tenant's own OpenID provider, asking for automatic redirection to wherever its discovery document says.
    const own = await siteApi.post('/api/auth/social-apps/', {
      provider: 'openid_connect',
      provider_id: 'phish',
      name: 'Company SSO',
      client_id: 'id',
      secret: 's',
      settings: {
        server_url: 'https://login.attacker.example/.well-known/openid-configuration',
        auto_redirect: true,
      },
    });
    expect(own.status).toBe(201);
    const asked = await page(`/sign-in?site=${site.body.slug}`);
    expect(asked.status).toBe(200);
    expect(asked.html).not.toContain('data-auto-redirect');
    expect(asked.html).toContain('data-auto-confirm="phish"');
    expect(asked.html).toContain('which this platform does not run');
    // A provider whose sign-in host the platform fixed may still be followed without a click.
    await siteApi.delete(`/api/auth/social-apps/${own.body.data.id}/`);
    const fixed = await siteApi.post('/api/auth/social-apps/', {
      provider: 'github',
      name: 'GitHub',
      client_id: 'id',
      secret: 's',
      settings: { auto_redirect: true },
    });
    expect(fixed.status).toBe(201);
    const unasked = await page(`/sign-in?site=${site.body.slug}`);
    expect(unasked.html).toContain('data-auto-redirect="github"');
    expect(unasked.html).not.toContain('data-auto-confirm');
  });

  it("a return_to is limited to the page's own site's allowlist, not another site's", async () => {
    const ownTarget = encodeURIComponent('https://app-a.example/home');
    const otherTarget = encodeURIComponent('https://app-b.example/home');
    expect((await page(`/sign-in?site=${a.slug}&return_to=${ownTarget}`)).status).toBe(200);
    const refused = await page(`/sign-in?site=${a.slug}&return_to=${otherTarget}`);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toContain('text/html');
    expect(refused.html).toContain('This sign-in link is not allowed');
    expect(refused.html).not.toContain('app-b.example');
    expect((await page(`/sign-in?site=${b.slug}&return_to=${otherTarget}`)).status).toBe(200);
    expect((await page(`/sign-in?site=${b.slug}&return_to=${ownTarget}`)).status).toBe(400);
    // The invitation page belongs to no site: only its own origin, never a site's allowlisted one.
    const token = await invite(a, `${unique('rt')}@example.com`);
    expect((await page(`/invitations/${token}?return_to=${ownTarget}`)).status).toBe(400);
    expect((await page(`/invitations/${token}?return_to=%2Faccount`)).status).toBe(200);
  });

  it('an invitation page shows its own organization only, and accepting it joins that organization only', async () => {
    const email = `${unique('joiner')}@example.com`;
    const token = await invite(a, email);
    // Whatever site the request names, the page is the invitation's organization's.
    const shown = await page(`/invitations/${token}?site=${b.slug}`, { 'x-site': b.slug });
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(a.organization.name);
    expect(shown.html).not.toContain(b.organization.name);
    expect(shown.html).not.toContain(b.siteName);
    expect(shown.html).not.toContain(b.provider);
    // A token one character off is no other invitation: the same 404 page, nothing of either organization.
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const forged = await page(`/invitations/${token.slice(0, -1)}${last}`);
    expect(forged.status).toBe(404);
    expect(forged.html).not.toContain(a.organization.name);
    expect(forged.html).not.toContain(b.organization.name);
    // What the page's form sends, with the other site named, joins the invitation's organization only.
    const accepted = await platform.api.forSite(b.slug).post(`/api/cloud/invitations/${token}/accept/`, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      password: 'Copper-Lantern-Meadow-93',
    });
    expect(accepted.status).toBe(200);
    const membersOf = async (tenant: PageTenant) => {
      const list = await tenant.owner.api.get(
        `/api/cloud/organizations/${tenant.organization.slug}/members/?page_size=100`,
      );
      expect(list.status).toBe(200);
      return JSON.stringify(list.body);
    };
    expect(await membersOf(a)).toContain(email);
    expect(await membersOf(b)).not.toContain(email);
  });

  it('the account page shows the signed-in user only, and the providers of the site it names', async () => {
    const cookie = await sessionCookie(a.owner.user.username, a.owner.password);
    const account = await page(`/account?site=${b.slug}`, { cookie });
    expect(account.status).toBe(200);
    expect(account.html).toContain(a.owner.user.email);
    expect(account.html).not.toContain(b.owner.user.email);
    expect(account.html).not.toContain(b.owner.user.username);
    // The site's public provider list, as anyone sees it; none of another site's.
    expect(account.html).toContain(b.provider);
    expect(account.html).not.toContain(a.provider);
    // Another user's cookie-less request is no one: sent to sign in, nothing shown.
    const anonymous = await page(`/account?site=${a.slug}`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.html).not.toContain(a.owner.user.email);
    // A session cookie of a user ended by sign-out shows nothing either.
    const ended = await fetch(`${platform.baseUrl}/api/auth/session/`, {
      method: 'DELETE',
      headers: { cookie, origin: new URL(platform.baseUrl).origin },
    });
    expect(ended.status).toBeLessThan(300);
    const after = await page(`/account?site=${a.slug}`, { cookie });
    expect(after.status).toBe(303);
    expect(after.html).not.toContain(a.owner.user.email);
    // ... and the sign-in page it leads to shows the form and the site's providers, not an error.
    const signIn = await page(`/sign-in?site=${a.slug}`, { cookie });
    expect(signIn.status).toBe(200);
    expect(signIn.html).toContain(a.provider);
    expect(signIn.html).not.toContain('You are signed in');
  });

  it('every page, error pages included, forbids framing and inline script', async () => {
    const token = await invite(b, `${unique('csp')}@example.com`);
    const cookie = await sessionCookie(b.owner.user.username, b.owner.password);
    const pages: [string, Record<string, string>?][] = [
      [`/sign-in?site=${a.slug}`],
      ['/sign-in'],
      [`/sign-in?site=no-such-site-${suffix}`],
      [`/sign-in?site=${a.slug}&return_to=${encodeURIComponent('https://evil.example/')}`],
      [`/sign-in/callback?site=${a.slug}&error=access_denied`],
      [`/sign-in/callback?site=${a.slug}&code=c&state=s`],
      [`/account?site=${a.slug}`],
      [`/account?site=${b.slug}`, { cookie }],
      [`/invitations/${token}`],
      ['/invitations/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['/invitations/not%20a%20token'],
    ];
    const statuses: number[] = [];
    for (const [path, headers] of pages) {
      const answer = await page(path, headers);
      statuses.push(answer.status);
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain('unsafe-inline');
      expect(answer.headers.get('x-frame-options'), path).toBe('DENY');
      expect(answer.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(answer.headers.get('cache-control'), path).toContain('no-store');
      if (answer.status !== 303) expect(answer.html, path).not.toMatch(/<script(?![^>]*\bsrc=)/i);
    }
    // The list covers the answers a page gives: shown, refused, not found, sent to sign in.
    expect(new Set(statuses)).toEqual(new Set([200, 303, 400, 404]));
  });
});
