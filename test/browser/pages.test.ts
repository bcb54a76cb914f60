import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { strictClock } from '../support/clock';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { latestToken, outboxFor } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';
import { expectAccessible, freePort, screenshot, TestBrowser } from './browser';

/**
 * The hosted pages in a real browser (Debian's Chromium): the invitation, sign-in, provider callback and account
 * pages against the platform's real HTTP server, and a real OpenID provider on 127.0.0.1.
 */

// A browser drives each test: generous per-test bounds (the verdicts never depend on them).
vi.setConfig({ testTimeout: 90_000 });

const { clock, advance } = strictClock();
const invitationTtl = 60;
let browser: TestBrowser;
let platform: TestPlatform;
let idp: IdentityProvider;
let tenant: Tenant;
let context: BrowserContext;
let page: Page;
let violations: string[];

const strongPassword = 'Copper-Lantern-Meadow-93';
/** The API's own messages (shared/accounts/password-policy.ts), shown by the pages while a password is typed. */
const weakMessage = 'This password is too easy to guess: use a longer phrase of unrelated words.';
const goodMessage = 'This password meets the password policy.';

beforeAll(async () => {
  const idpPort = await freePort();
  browser = new TestBrowser();
  platform = await startTestPlatform(
    {
      SOCIAL_LOGIN_ALLOWED_HOSTS: `127.0.0.1:${idpPort}`,
      SOCIAL_LOGIN_REDIRECTS_PER_MINUTE: '100000',
      INVITATION_TTL_SECONDS: String(invitationTtl),
      PAGES_RETURN_ORIGINS: 'https://app.example.com',
      SIGN_UP: 'open',
    },
    { clock },
    // The pages read and write accounts, sessions and invitations, never a data table: no PostgreSQL (a page that
    // reached it would answer 500), and CI's PostgreSQL pass leaves this file out.
    { dataPlane: false },
  );
  idp = await startIdentityProvider({ port: idpPort, redirectUri: `${platform.baseUrl}/sign-in/callback` });
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await idp?.stop();
});
beforeEach(async () => {
  tenant ??= await createTenant(platform);
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  violations = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  return async () => {
    expect(violations).toEqual([]);
    await browser.closeContext(context);
  };
});

const url = (path: string) => `${platform.baseUrl}${path}`;

async function invite(email: string): Promise<string> {
  const created = await tenant.owner.post(
    `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
    {
      invitee_identifier: email,
    },
  );
  expect(created.status).toBe(201);
  return latestToken(platform, email);
}

async function signInWithPassword(
  login: string,
  password: string,
  path = `/sign-in?site=${tenant.site.slug}`,
) {
  await page.goto(url(path));
  await page.getByLabel('Username or e-mail').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function addCorpApp(fields: Record<string, unknown> = {}, owner = tenant) {
  const providerId = unique('corp').replace(/[^a-z0-9-]/g, '');
  const created = await owner.owner.post('/api/auth/social-apps/', {
    provider: 'openid_connect',
    provider_id: providerId,
    name: 'Corp <b>SSO</b>',
    client_id: idp.clientId,
    secret: idp.clientSecret,
    settings: { server_url: idp.discoveryUrl, ...fields },
  });
  expect(created.status).toBe(201);
  return { id: created.body.data.id as number, key: providerId };
}

describe('invitation page', () => {
  it('a new person accepts, lands signed in in the console at the organization', async () => {
    const email = `${unique('new')}@example.com`;
    const token = await invite(email);
    const response = await page.goto(url(`/invitations/${token}`));
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    await expect
      .poll(() => page.locator('h1').textContent())
      .toContain(tenant.organization.slug ? 'Join' : '');
    await expect.poll(() => page.locator('main').textContent()).toContain(email);
    // The account's username is the e-mail address (the invitation names no other): the page says so.
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain(
        'Your username will be this e-mail address: you sign in with it and the password you choose here.',
      );
    await expectAccessible(page);
    await screenshot(page, 'invitation');

    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    const password = page.getByLabel('Password', { exact: true });
    // While typing, the API's own policy answers in the hint (POST /api/cloud/users/password-check/).
    const hint = page.locator('#password-hint');
    await password.fill('short');
    await expect.poll(() => hint.textContent()).toBe('Ensure this field has at least 10 characters.');
    await password.fill('passwordpassword');
    await expect.poll(() => hint.textContent()).toBe(weakMessage);
    await expectAccessible(page);
    await screenshot(page, 'invitation-password-weak');
    await password.fill(strongPassword);
    await expect.poll(() => hint.textContent()).toBe(goodMessage);
    // On submit, the API's answer is shown at the field.
    await password.fill('passwordpassword');
    await page.getByRole('button', { name: /Create my account/ }).click();
    await expect.poll(() => page.locator('#password-error').textContent()).toMatch(/easy to guess/);
    await expect.poll(() => password.getAttribute('aria-invalid')).toBe('true');
    // Said once, at the field: the hint goes back to its text.
    await expect.poll(() => hint.textContent()).toMatch(/^At least 10 characters/);
    await screenshot(page, 'invitation-error');

    await password.fill(strongPassword);
    await page.getByRole('button', { name: /Create my account/ }).click();
    // Into the console, at the organization the person joined (test/browser/console.test.ts follows it there).
    await page.waitForURL(
      (address) => address.pathname === '/console/' && address.hash === `#/o/${tenant.organization.slug}`,
    );
    await page.goto(url('/account'));
    await expect.poll(() => page.locator('main').textContent()).toContain('Grace Hopper');
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'sessionid');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');

    // The link is used now: its own page, 410, HTML.
    const again = await page.goto(url(`/invitations/${token}`));
    expect(again?.status()).toBe(410);
    expect(again?.headers()['content-type']).toContain('text/html');
    await expect
      .poll(() => page.locator('h1').textContent())
      .toBe('This invitation has already been accepted');
    await expectAccessible(page);
    await screenshot(page, 'invitation-used');
  });

  it('an existing account gets sign-in wording; the new password works and the old one no longer', async () => {
    const existing = await createUser(platform, { first_name: 'Alan', last_name: 'Turing' });
    const token = await invite(existing.user.email);
    await page.goto(url(`/invitations/${token}`));
    await expect.poll(() => page.locator('h1').textContent()).toContain('Sign in to join');
    await expect.poll(() => page.locator('main').textContent()).toContain('replaces your current one');
    await expect.poll(() => page.getByLabel('First name').inputValue()).toBe('Alan');
    await page.getByLabel('New password').fill('passwordpassword');
    await expect.poll(() => page.locator('#password-hint').textContent()).toBe(weakMessage);
    await page.getByLabel('New password').fill(strongPassword);
    await expect.poll(() => page.locator('#password-hint').textContent()).toBe(goodMessage);
    await page.getByRole('button', { name: 'Sign in and join' }).click();
    await page.waitForURL((address) => address.pathname === '/console/');

    const fresh = await browser.newContext();
    page = await fresh.newPage();
    await signInWithPassword(existing.user.email, existing.password);
    await expect
      .poll(() => page.locator('[data-form-alert]').textContent())
      .toBe('The username, e-mail or password is not correct.');
    await page.getByLabel('Password', { exact: true }).fill(strongPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/account(\?|$)/);
    await browser.closeContext(fresh);
  });

  it('unknown, cancelled and expired links get their own HTML page with the right status', async () => {
    const unknown = await page.goto(url('/invitations/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
    expect(unknown?.status()).toBe(404);
    expect(unknown?.headers()['content-type']).toContain('text/html');
    await expect.poll(() => page.locator('h1').textContent()).toBe('This invitation link is not valid');
    await expectAccessible(page);
    await screenshot(page, 'invitation-not-valid');

    const cancelledEmail = `${unique('cancel')}@example.com`;
    const cancelledToken = await invite(cancelledEmail);
    const list = await tenant.owner.get(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/?search=${encodeURIComponent(cancelledEmail)}`,
    );
    const uuid = list.body.results[0].uuid;
    expect(
      (await tenant.owner.delete(`/api/cloud/organizations/${tenant.organization.slug}/invitations/${uuid}/`))
        .status,
    ).toBe(204);
    const cancelled = await page.goto(url(`/invitations/${cancelledToken}`));
    expect(cancelled?.status()).toBe(404);
    await expect.poll(() => page.locator('main').textContent()).toContain('cancelled');

    const expiring = await invite(`${unique('late')}@example.com`);
    advance((invitationTtl + 1) * 1000);
    const expired = await page.goto(url(`/invitations/${expiring}`));
    expect(expired?.status()).toBe(410);
    await expect.poll(() => page.locator('h1').textContent()).toBe('This invitation has expired');
    await expectAccessible(page);
    await screenshot(page, 'invitation-expired');
  });
});

describe('sign-in page', () => {
  it('signs in with a password, shows the site, and signs out', async () => {
    const person = await createUser(platform);
    const response = await page.goto(url(`/sign-in?site=${tenant.site.slug}`));
    expect(response?.status()).toBe(200);
    await expect
      .poll(() => page.locator('.site-name').textContent())
      .toBe((tenant.site as { name?: string }).name ?? '');
    await expectAccessible(page);
    // Keyboard only: the fields and the button in order.
    await page.keyboard.press('Tab');
    await page.keyboard.type(person.user.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(person.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/account/);
    await expect.poll(() => page.locator('main').textContent()).toContain(person.user.email);
    await expectAccessible(page);
    await screenshot(page, 'account');

    await page.getByRole('button', { name: 'Sign out' }).last().click();
    await page.waitForURL(/\/sign-in/);
    const after = await page.goto(url(`/account?site=${tenant.site.slug}`));
    expect(after?.url()).toContain('/sign-in');
  });

  it('asks an account with a second factor for its code, then signs in; a wrong code says so', async () => {
    const person = await createUser(platform);
    const enrolled = await person.api.post('/api/auth/mfa/totp/');
    const totp = new TOTP({ secret: Secret.fromBase32(enrolled.body.secret) });
    const confirmed = await person.api.post('/api/auth/mfa/totp/confirm/', {
      code: totp.generate({ timestamp: clock().getTime() }),
    });
    expect(confirmed.status).toBe(200);
    await signInWithPassword(person.user.username, person.password);
    const code = page.getByLabel('Code or recovery code');
    await expect.poll(() => code.isVisible()).toBe(true);
    await expect
      .poll(() => page.evaluate('document.activeElement && document.activeElement.id'))
      .toBe('code');
    expect(await page.locator('#sign-in-form').isHidden()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'sign-in-second-factor');
    await code.fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.locator('[data-second-factor-alert]').textContent()).not.toBe('');
    // The next time step's code: within the window, and not the step the confirmation spent.
    await code.fill(totp.generate({ timestamp: clock().getTime() + 30_000 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/account/);
    await expect.poll(() => page.locator('main').textContent()).toContain(person.user.email);
  });

  it('takes a recovery code in place of the authenticator code', async () => {
    const person = await createUser(platform);
    const enrolled = await person.api.post('/api/auth/mfa/totp/');
    const totp = new TOTP({ secret: Secret.fromBase32(enrolled.body.secret) });
    const confirmed = await person.api.post('/api/auth/mfa/totp/confirm/', {
      code: totp.generate({ timestamp: clock().getTime() }),
    });
    const [recovery] = confirmed.body.recovery_codes as string[];
    await signInWithPassword(person.user.username, person.password);
    await page.getByLabel('Code or recovery code').fill(recovery as string);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/account/);
  });

  it('refuses a return_to outside the allowlist and follows one inside it', async () => {
    const refused = await page.goto(
      url(`/sign-in?site=${tenant.site.slug}&return_to=${encodeURIComponent('https://evil.example/steal')}`),
    );
    expect(refused?.status()).toBe(400);
    await expect.poll(() => page.locator('h1').textContent()).toBe('This sign-in link is not allowed');
    await expectAccessible(page);
    await screenshot(page, 'return-to-refused');
    for (const bad of ['//evil.example/x', 'javascript:alert(1)', '/\\evil.example']) {
      const answer = await page.goto(url(`/sign-in?return_to=${encodeURIComponent(bad)}`));
      expect(answer?.status()).toBe(400);
    }
    const allowed = await page.goto(
      url(
        `/sign-in?site=${tenant.site.slug}&return_to=${encodeURIComponent('https://app.example.com/home')}`,
      ),
    );
    expect(allowed?.status()).toBe(200);
    expect(await page.locator('body').getAttribute('data-return-to')).toBe('https://app.example.com/home');
  });

  it('an unknown site is a 404 page', async () => {
    const answer = await page.goto(url('/sign-in?site=no-such-site-here'));
    expect(answer?.status()).toBe(404);
    expect(answer?.headers()['content-type']).toContain('text/html');
  });
});

describe('forgotten password', () => {
  it('from the sign-in page: asks for a link, follows it from the e-mail, sets a new password and signs in', async () => {
    const person = await createUser(platform);
    await page.goto(url(`/sign-in?site=${tenant.site.slug}`));
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(/\/reset-password/);
    await expectAccessible(page);
    await screenshot(page, 'reset-request');
    await page.getByLabel('E-mail address').fill(person.user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect
      .poll(() => page.locator('[data-reset-sent]').textContent())
      .toContain('If an account has this address');
    // The link, as the person reads it in the e-mail: the token after `#`.
    const eml = outboxFor(platform, person.user.email).find((message) =>
      message.includes('Choose a new password'),
    );
    const token = /\/reset-password#([A-Za-z0-9_-]{43})/.exec(eml ?? '')?.[1];
    expect(token).toBeDefined();
    // The test server listens on a port of its own: the e-mail's link, on it.
    const link = url(`/reset-password#${token}`);
    await page.goto(link);
    // The token leaves the address bar at once.
    await expect.poll(() => page.url()).not.toContain('#');
    await page.getByLabel('New password').fill('weak');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.locator('#password-error').textContent()).not.toBe('');
    await page.getByLabel('New password').fill('Saffron-Glacier-Rowboat-64');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.locator('[data-reset-done]').isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'reset-done');
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Username or e-mail').fill(person.user.username);
    await page.getByLabel('Password').fill('Saffron-Glacier-Rowboat-64');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/account/);
    // The same link again: it worked once, and says how to get another.
    await page.goto(link);
    await page.getByLabel('New password').fill('Another-Harbor-Lantern-19');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect
      .poll(() => page.locator('[data-form-alert]').last().textContent())
      .toContain('does not work');
    expect(await page.getByRole('link', { name: 'Ask for a new link' }).count()).toBe(1);
  });
});

describe('sign-up', () => {
  it('from the sign-in page: makes an account, confirms the address from the e-mail and signs in', async () => {
    const email = `${unique('joiner')}@example.com`;
    const chosen = 'Tamarind-Beacon-Orchid-27';
    await page.goto(url(`/sign-in?site=${tenant.site.slug}`));
    await page.getByRole('link', { name: 'Make an account' }).click();
    await page.waitForURL(/\/sign-up/);
    await expectAccessible(page);
    await screenshot(page, 'sign-up');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('First name').fill('Grace');
    await page.getByLabel('Last name').fill('Hopper');
    await page.getByLabel('Password').fill(chosen);
    await page.getByRole('button', { name: 'Make my account' }).click();
    await expect.poll(() => page.locator('[data-sign-up-sent]').textContent()).toContain('Check your e-mail');
    const eml = outboxFor(platform, email).find((message) => message.includes('Confirm your e-mail address'));
    const token = /\/verify-email#([A-Za-z0-9_-]{43})/.exec(eml ?? '')?.[1];
    expect(token).toBeDefined();
    await page.goto(url(`/verify-email#${token}`));
    await expect.poll(() => page.locator('[data-verify-status]').textContent()).toContain('confirmed');
    await expect.poll(() => page.url()).not.toContain('#');
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Username or e-mail').fill(email);
    await page.getByLabel('Password').fill(chosen);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/account/);
    await expect.poll(() => page.locator('main').textContent()).toContain('Grace Hopper');
  });
});

describe('provider sign-in', () => {
  // A site of its own per test: an app that users signed in with cannot be deleted.
  let site: Tenant;
  beforeEach(async () => {
    site = await createTenant(platform);
  });
  it('shows one button per provider, escaped, and signs in through the provider and back', async () => {
    const app = await addCorpApp({ icon: 'javascript:alert(1)' }, site);
    const id = unique('acct');
    const email = `${id}@idp.example`;
    idp.accounts.set(id, { email, email_verified: true, given_name: 'Ada', family_name: 'Lovelace' });
    idp.browserAccount = id;
    await page.goto(url(`/sign-in?site=${site.site.slug}`));
    const button = page.getByRole('button', { name: 'Continue with Corp <b>SSO</b>' });
    await expect.poll(() => button.count()).toBe(1);
    expect(await page.locator('button[data-provider] img').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
    await button.click();
    await page.waitForURL(/\/account(\?|$)/);
    await expect.poll(() => page.locator('main').textContent()).toContain('Ada Lovelace');
    // The link is listed under the app's name, as text.
    await expect.poll(() => page.locator('.links').textContent()).toContain('Corp <b>SSO</b>');
    expect(app.key).toMatch(/^corp-/);
  });

  it("asks before leaving for a site's own provider that asks for auto_redirect, naming its host", async () => {
    await addCorpApp({ auto_redirect: true }, site);
    const id = unique('acct');
    idp.accounts.set(id, {
      email: `${id}@idp.example`,
      email_verified: true,
      given_name: 'Kat',
      family_name: 'J',
    });
    idp.browserAccount = id;
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });
    await page.goto(url(`/sign-in?site=${site.site.slug}`));
    // The page names the host it would go to and stays until the person chooses to go.
    const go = page.getByRole('link', { name: 'Continue to Corp <b>SSO</b>' });
    await expect.poll(() => go.isVisible()).toBe(true);
    await expect.poll(() => page.locator('[data-leaving-host]').textContent()).toBe(new URL(idp.issuer).host);
    expect(navigations.every((address) => address.startsWith(platform.baseUrl))).toBe(true);
    expect(page.url()).toContain('/sign-in');
    await expectAccessible(page);
    await screenshot(page, 'sign-in-leaving');
    await go.click();
    await page.waitForURL(/\/account(\?|$)/);

    const other = await browser.newContext();
    page = await other.newPage();
    await page.goto(url(`/sign-in?site=${site.site.slug}&auto_redirect=0`));
    await expect.poll(() => page.getByRole('button', { name: /Continue with/ }).count()).toBe(1);
    expect(await page.locator('[data-leaving]').count()).toBe(0);
    expect(page.url()).toContain('/sign-in');
    await browser.closeContext(other);
  });

  it('explains a denied consent and a callback this browser did not start, with a way back', async () => {
    const denied = await page.goto(url(`/sign-in/callback?error=access_denied&state=x`));
    expect(denied?.status()).toBe(400);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Sign-in was cancelled');
    await expect.poll(() => page.getByRole('link', { name: 'Back to sign-in' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'callback-denied');

    await page.goto(url(`/sign-in/callback?code=abc&state=forged`));
    await expect
      .poll(() => page.locator('[data-callback-message]').textContent())
      .toContain('not started in this browser');
    await expectAccessible(page);
  });

  it('links and unlinks a provider from the account page', { timeout: 60_000 }, async () => {
    await addCorpApp({}, site);
    const person = await createUser(platform);
    const id = unique('acct');
    idp.accounts.set(id, { email: `${id}@idp.example`, email_verified: true });
    idp.browserAccount = id;
    await signInWithPassword(person.user.username, person.password, `/sign-in?site=${site.site.slug}`);
    await page.waitForURL(/\/account/);
    await page.getByRole('button', { name: 'Link Corp <b>SSO</b>' }).click();
    // To the provider and back through the callback page, to the account page that lists the link.
    await page.getByRole('button', { name: /^Unlink/ }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: /^Unlink/ }).click();
    await page.getByText('No provider is linked to your account.').waitFor({ timeout: 30_000 });
  });

  it('changes the password with the current one', async () => {
    const person = await createUser(platform);
    await signInWithPassword(person.user.username, person.password, `/sign-in?site=${site.site.slug}`);
    await page.waitForURL(/\/account/);
    // The account's own username counts as a known word, as in the API's check of the change.
    await page.getByLabel('New password').fill(`${person.user.username}1`);
    await expect.poll(() => page.locator('#password-hint').textContent()).toBe(weakMessage);
    await expectAccessible(page);
    await page.getByLabel('Current password').fill('wrong-password-here');
    await page.getByLabel('New password').fill(strongPassword);
    await expect.poll(() => page.locator('#password-hint').textContent()).toBe(goodMessage);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.locator('#current_password-error').textContent()).toMatch(/not correct/);
    await page.getByLabel('Current password').fill(person.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect
      .poll(() => page.locator('#password-form [data-form-alert]').textContent())
      .toMatch(/changed/);
    expect(
      (
        await platform.api.post('/api/auth/jwt/token/', {
          username: person.user.username,
          password: strongPassword,
        })
      ).status,
    ).toBe(200);
  });
});

describe('account security', () => {
  it('sets up an authenticator app from the account page, shows the recovery codes once, and turns it off', async () => {
    const person = await createUser(platform);
    await signInWithPassword(person.user.username, person.password);
    await page.waitForURL(/\/account/);
    await expect.poll(() => page.locator('[data-factor-status]').textContent()).toMatch(/No second factor/);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const key = page.locator('[data-factor-secret]');
    await expect.poll(() => key.textContent()).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.locator('[data-factor-qr]').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    await expectAccessible(page);
    await screenshot(page, 'account-second-factor');
    const totp = new TOTP({ secret: Secret.fromBase32((await key.textContent()) ?? '') });
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on the second factor' }).click();
    await expect.poll(() => page.locator('#factor_code-error').textContent()).not.toBe('');
    await page.getByLabel('Code from the app').fill(totp.generate({ timestamp: clock().getTime() }));
    await page.getByRole('button', { name: 'Turn on the second factor' }).click();
    await expect.poll(() => page.locator('[data-recovery-codes] li').count()).toBe(10);
    await expectAccessible(page);
    // Signing in now asks for the code.
    const first = await platform.api.post('/api/auth/jwt/token/', {
      username: person.user.username,
      password: person.password,
    });
    expect(first.status).toBe(401);
    expect(first.body.code).toBe('mfa_required');
    await page.reload();
    await expect.poll(() => page.locator('[data-factor-status]').textContent()).toMatch(/10 recovery codes/);
    await page.getByLabel('Password to turn it off').fill(person.password);
    await page.getByRole('button', { name: 'Turn off the second factor' }).click();
    await expect.poll(() => page.locator('[data-factor-status]').textContent()).toMatch(/No second factor/);
  });

  it('asks for an e-mail change with the password; the link sent to the new address makes it', async () => {
    const person = await createUser(platform);
    await signInWithPassword(person.user.username, person.password);
    await page.waitForURL(/\/account/);
    const to = `${unique('moved')}@example.com`;
    await page.getByLabel('New e-mail address').fill(to);
    await page.getByLabel('Your password, to confirm the change').fill('wrong-password-here');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => page.locator('#email_password-error').textContent()).toMatch(/not correct/);
    await page.getByLabel('Your password, to confirm the change').fill(person.password);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect
      .poll(() => page.locator('#email-form [data-form-alert]').textContent())
      .toMatch(/Check the new address/);
    const token = outboxFor(platform, to)
      .map((eml) => /\/verify-email#([A-Za-z0-9_-]{43})/.exec(eml)?.[1])
      .find(Boolean);
    expect(token).toBeDefined();
    await page.goto(url(`/verify-email?site=${tenant.site.slug}#${token}`));
    await expect.poll(() => page.locator('[data-verify-status]').textContent()).toContain(to);
    await expectAccessible(page);
  });

  it('lists where the account is signed in and ends the others', async () => {
    const person = await createUser(platform);
    // Another sign-in elsewhere: an app holding tokens.
    await platform.api.login(person.user.username, person.password);
    await signInWithPassword(person.user.username, person.password);
    await page.waitForURL(/\/account/);
    const sessions = page.locator('[data-sessions] li');
    await expect.poll(() => sessions.count()).toBeGreaterThanOrEqual(2);
    await expect.poll(() => page.locator('[data-sessions]').textContent()).toContain('this one');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect
      .poll(() => page.locator('[data-sessions-alert]').textContent())
      .toMatch(/other sessions? ended/);
    await expect.poll(() => sessions.count()).toBe(1);
  });
});
