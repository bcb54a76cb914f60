import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { latestToken, outboxFor } from '../support/invitation-mail';
import { adminPassword, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';
import { expectAccessible, screenshot } from './browser';
import { ConsoleHarness } from './console-harness';

/**
 * The console's platform sections in a real browser (docs/console.md, "Mail", "Users", "Dark theme"): the local
 * outbox with an invitation's message readable and its link clickable, its untrusted text shown as text; the users
 * list's search, deactivation, reset link, organizations and creation; both for superusers only; and the dark
 * theme that follows the system, axe-core clean in both schemes.
 */

vi.setConfig({ testTimeout: 120_000 });
const ui = new ConsoleHarness('console-platform', 20_000);
const { poll, url, signIn } = ui;
/** Where the messages' links point: a host the test answers for (page.route), so following one is seen. */
const linkHost = 'http://mail-link.test';
let platform: TestPlatform;
let tenant: Tenant;
let page: Page;

beforeAll(async () => {
  platform = await ui.start({
    INVITATION_LINK_BASE: `${linkHost}/invitations`,
    PASSWORD_RESET_LINK_BASE: `${linkHost}/reset-password`,
  });
  tenant = await createTenant(platform);
}, 240_000);
afterAll(() => ui.stop());
beforeEach(async () => {
  ({ page } = await ui.open());
  return ui.close;
});

const heading = () => page.locator('h1').textContent();

async function invite(email: string) {
  const response = await tenant.owner.post(
    `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
    {
      invitee_identifier: email,
    },
  );
  expect(response.status).toBe(201);
}

describe('the Mail view', () => {
  it("shows the outbox newest first; an invitation's message opens, readable, with its link clickable", async () => {
    const email = `${unique('invitee')}@example.com`;
    await invite(`${unique('earlier')}@example.com`);
    await invite(email);
    const link = `${linkHost}/invitations/${latestToken(platform, email)}`;
    await signIn('admin', adminPassword);
    await page.getByRole('navigation', { name: 'Platform' }).getByRole('link', { name: 'Mail' }).click();
    await poll(heading).toBe('Mail');
    const list = page.getByRole('list', { name: 'Messages, newest first' });
    await poll(() => list.getByRole('button').first().textContent()).toContain(email);
    await list.getByRole('button').first().click();
    const message = page.locator('article.mail-message');
    await poll(() => message.locator('dd').nth(1).textContent()).toBe(email);
    const anchor = message.getByRole('link', { name: link });
    expect(await anchor.getAttribute('href')).toBe(link);
    await expectAccessible(page);
    await screenshot(page, 'console-mail');
    // Following it reaches the link's own address, token and all.
    await page.route(`${linkHost}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Accept</title><p>followed</p>' }),
    );
    await anchor.click();
    await page.waitForURL(link);
  });

  it("shows a tenant's crafted organization name as text: no HTML, and no link but http(s) ones", async () => {
    const crafted = '<img src=x onerror="window.pwned=1"><a href="javascript:pwned=2">Go</a>';
    const owner = await createUser(platform);
    const org = await owner.api.post('/api/cloud/organizations/', { name: `${crafted} javascript:pwned=3` });
    expect(org.status).toBe(201);
    const email = `${unique('crafted')}@example.com`;
    const sent = await owner.api.post(`/api/cloud/organizations/${org.body.slug}/invitations/`, {
      invitee_identifier: email,
    });
    expect(sent.status).toBe(201);
    expect(outboxFor(platform, email)[0]).toContain('<img src=x');
    await signIn('admin', adminPassword);
    await page.goto(url('/console/#/mail'));
    await poll(heading).toBe('Mail');
    await page.getByRole('list', { name: 'Messages, newest first' }).getByRole('button').first().click();
    const message = page.locator('article.mail-message');
    await poll(() => message.textContent()).toContain('<img src=x');
    expect(await message.locator('img').count()).toBe(0);
    const hrefs = await message
      .locator('a')
      .evaluateAll((anchors) =>
        anchors.map((a) => (a as { getAttribute(name: string): string | null }).getAttribute('href')),
      );
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
  });

  it('is not offered to anyone but a superuser, and its screen refuses them', async () => {
    const { user } = await createUser(platform);
    await signIn(user.username);
    await poll(heading).toBe('Choose an organization');
    expect(await page.getByRole('navigation', { name: 'Platform' }).count()).toBe(0);
    await page.goto(url('/console/#/mail'));
    await poll(() => page.getByRole('alert').textContent()).toContain('Only superusers');
    expect(await page.locator('.mail-list').count()).toBe(0);
  });
});

describe('the Users list', () => {
  it('searches, shows organizations, sends a reset link and deactivates, for a superuser', async () => {
    const person = await createUser(platform, { username: unique('findme') });
    await createUser(platform, { username: unique('other') });
    const added = await platform.adminApi.post(
      `/api/cloud/organizations/${tenant.organization.slug}/members/`,
      {
        user_id: person.user.id,
      },
    );
    expect(added.status).toBe(200);
    await signIn('admin', adminPassword);
    await page.getByRole('navigation', { name: 'Platform' }).getByRole('link', { name: 'Users' }).click();
    await poll(heading).toBe('Users');
    await page.getByLabel('Search users').fill(person.user.username);
    const rows = page.locator('tbody > tr');
    await poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator('th').textContent()).toBe(person.user.username);
    await page.getByRole('button', { name: `Organizations of ${person.user.username}` }).click();
    const orgs = page.getByRole('list', { name: `Organizations of ${person.user.username}` });
    await poll(() => orgs.textContent()).toContain('(member)');
    await expectAccessible(page);
    await screenshot(page, 'console-users');

    await page.getByRole('button', { name: `Send reset link to ${person.user.username}` }).click();
    await poll(() => page.locator('.status').first().textContent()).toContain(`sent to ${person.user.email}`);
    expect(
      outboxFor(platform, person.user.email).some((eml) => eml.includes(`${linkHost}/reset-password#`)),
    ).toBe(true);

    await page.getByRole('button', { name: `Deactivate ${person.user.username}` }).click();
    await poll(() => rows.first().textContent()).toContain('Deactivated');
    const signInAgain = await platform.api.post('/api/auth/jwt/token/', {
      username: person.user.username,
      password: person.password,
    });
    expect(signInAgain.status).not.toBe(200);
    await page.getByRole('button', { name: `Activate ${person.user.username}` }).click();
    await poll(() => rows.first().textContent()).toContain('Active');
  });

  it('creates an account whose person chooses the password by the link e-mailed to them', async () => {
    const email = `${unique('created')}@example.com`;
    await signIn('admin', adminPassword);
    await page.goto(url('/console/#/users'));
    await poll(heading).toBe('Users');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('First name').fill('Ada');
    await page.getByRole('button', { name: 'Create and send the link' }).click();
    await poll(() => page.locator('#create-user .status').textContent()).toContain(`sent to ${email}`);
    const [message] = outboxFor(platform, email);
    expect(message).toContain(`${linkHost}/reset-password#`);
    await page.getByLabel('Search users').fill(email);
    await poll(() => page.locator('tbody > tr').first().textContent()).toContain('Ada');
  });

  it('is refused to anyone but a superuser', async () => {
    await signIn(tenant.ownerUser.username);
    await page.goto(url('/console/#/users'));
    await poll(() => page.getByRole('alert').textContent()).toContain('Only superusers');
    expect(await page.locator('table').count()).toBe(0);
  });
});

describe('the dark theme', () => {
  it('follows the system: dark backgrounds in the dark scheme, axe-core clean in both', async () => {
    await signIn('admin', adminPassword);
    const background = () =>
      page.evaluate(() => {
        const window = globalThis as any;
        return window.getComputedStyle(window.document.documentElement).backgroundColor as string;
      });
    for (const [scheme, expected] of [
      ['light', 'rgb(255, 255, 255)'],
      ['dark', 'rgb(17, 24, 39)'],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const place of ['#/users', '#/mail', `#/o/${tenant.organization.slug}/people`]) {
        await page.goto(url(`/console/${place}`));
        await poll(() => page.locator('h1').count()).toBeGreaterThan(0);
        await poll(heading).not.toBe('Loading…');
        if (place === '#/mail')
          await page
            .getByRole('list', { name: 'Messages, newest first' })
            .getByRole('button')
            .first()
            .click();
        expect(await background()).toBe(expected);
        await expectAccessible(page);
      }
      if (scheme === 'dark') await screenshot(page, 'console-dark');
    }
  });
});
