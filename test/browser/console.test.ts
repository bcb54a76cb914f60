import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { latestToken } from '../support/invitation-mail';
import type { TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant, unique } from '../support/tenant';
import { expectAccessible, screenshot } from './browser';
import { ConsoleHarness, password } from './console-harness';

/**
 * The console (docs/console.md) in a real browser (Debian's Chromium) against the platform's real HTTP server:
 * sign in through the hosted sign-in page, pick organization, site and app, create tables, add, refuse, edit,
 * filter, sort and delete records, invite, resend and cancel, reveal a secret, a read-only member, sign out.
 * The console is built from its sources first (the same build as `npm run console`), so it is never stale.
 */

vi.setConfig({ testTimeout: 120_000 });
/** `expect.poll` with a bound that a loaded machine meets (a table's creation is DDL): never a verdict on speed. */
const ui = new ConsoleHarness('console', 20_000);
const { browser, poll, url, signIn } = ui;
let platform: TestPlatform;
let tenant: Tenant;
let page: Page;

beforeAll(async () => {
  platform = await ui.start();
  tenant = await createTenant(platform);
}, 240_000);
afterAll(() => ui.stop());
beforeEach(async () => {
  ({ page } = await ui.open());
  return ui.close;
});

const place = () => `#/o/${tenant.organization.slug}/s/${tenant.site.slug}/a/${tenant.app.slug}`;

async function openTable(name: string) {
  await page.goto(url(`/console/${place()}/t/${name}`));
  await poll(() => page.locator('h1').textContent()).toBe(`Table ${name}`);
}

describe('console', () => {
  it('is one HTML page under the strict policy, with hashed assets cached for a year', async () => {
    const response = await page.goto(url('/console/'));
    expect(response?.status()).toBe(200);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['cache-control']).toBe('no-store');
    // The page's own body, read apart: the browser may drop it once the console goes on to the sign-in page.
    const html = await (await fetch(url('/console/'))).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const script = /src="(\/console\/assets\/console-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(url(script ?? ''));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toContain('javascript');
    await asset.arrayBuffer();
    // Only the built names: nothing else is read from disk.
    for (const name of ['manifest.json', '..%2Fbuild.ts', 'console-AAAAAAAA.js']) {
      const refused = await fetch(url(`/console/assets/${name}`));
      expect(refused.status).toBe(404);
      await refused.arrayBuffer();
    }
  });

  it('signs in through the hosted page, picks organization, site and app, creates tables and works on records', async () => {
    await signIn(tenant.ownerUser.username);
    await poll(() => page.locator('h1').textContent()).toBe('Choose an organization');
    await expectAccessible(page);
    await screenshot(page, 'console-organizations');

    await page.getByRole('link', { name: new RegExp(tenant.organization.slug) }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Choose a site');
    await page.getByRole('link', { name: new RegExp(tenant.site.slug) }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Choose an app');
    // The site's name is always in the header once chosen.
    await poll(() => page.locator('.site-name').textContent()).toContain('Site-');
    await expectAccessible(page);
    await screenshot(page, 'console-apps');
    await page.getByRole('link', { name: new RegExp(tenant.app.slug) }).click();
    await poll(() => page.locator('h1').textContent()).toBe(`Tables of ${tenant.app.slug}`);
    await poll(() => page.locator('main').textContent()).toContain('This app has no table yet.');

    // A table refused by the API: the message is shown at the field.
    await page.getByLabel('Table name').fill('bad name!');
    await page.getByLabel('Field 1 name').fill('name');
    await page.getByRole('button', { name: 'Create table' }).click();
    await poll(() => page.getByLabel('Table name').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);

    await page.getByLabel('Table name').fill('authors');
    await page.getByLabel('Field 1 required').check();
    await page.getByRole('button', { name: 'Create table' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Table authors');

    // A second table with a foreign key to the first.
    await page.getByRole('link', { name: /All tables of/ }).click();
    await page.getByLabel('Table name').fill('books');
    await page.getByLabel('Field 1 name').fill('title');
    await page.getByLabel('Field 1 required').check();
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Field 2 name').fill('pages');
    await page.getByLabel('Field 2 type').selectOption('integer');
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Field 3 name').fill('author');
    await page.getByLabel('Field 3 references').selectOption('authors');
    await page.getByLabel(/^Full-text search on/).fill('title');
    await page.getByLabel(/^Relationship types/).fill('sequel_of');
    await page.getByRole('button', { name: 'Create table' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Table books');
    await expect
      .poll(() => page.locator('section[aria-labelledby="schema-title"]').textContent())
      .toContain('author → authors.id');
    await expect
      .poll(() => page.locator('section[aria-labelledby="schema-title"]').textContent())
      .toContain('sequel_of');

    // A record refused by the API (title is required): its message at the field, what was typed kept.
    await page.getByRole('button', { name: 'New record' }).click();
    await page.getByLabel('pages', { exact: true }).fill('120');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const title = page.getByLabel('title (required)');
    await poll(() => title.getAttribute('aria-invalid')).toBe('true');
    await poll(() => page.locator('.field-error').first().textContent()).toMatch(/title|required/i);
    expect(await page.getByLabel('pages', { exact: true }).inputValue()).toBe('120');
    await expectAccessible(page);
    await screenshot(page, 'console-record-refused');

    await title.fill('Dune');
    await page.getByLabel('pages', { exact: true }).fill('412');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await poll(() => page.locator('.status').first().textContent()).toContain('1 record');
    for (const [name, pages] of [
      ['Hyperion', '482'],
      ['Dune Messiah', '256'],
      ['Children of Dune', '444'],
    ]) {
      await page.getByRole('button', { name: 'New record' }).click();
      await page.getByLabel('title (required)').fill(name as string);
      await page.getByLabel('pages', { exact: true }).fill(pages as string);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await poll(() => page.locator('form.card').count()).toBe(0);
    }
    await poll(() => page.locator('.status').first().textContent()).toContain('4 records');

    // Full-text search: ranked hits with the matches highlighted.
    await page.getByLabel('Search text').fill('messiah');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await poll(() => page.locator('.hits mark').allTextContents()).toEqual(['Messiah']);
    await poll(() => page.locator('.hits li').allTextContents()).toEqual(['Dune Messiah']);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Clear search' }).click();

    // Filter: pages at least 300, and title contains "dune".
    await page.getByLabel('Filter field').selectOption('pages');
    await page.getByLabel('Operator').selectOption('gte');
    await page.getByLabel('Value').fill('300');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await poll(() => page.locator('.status').first().textContent()).toContain('3 records');
    await page.getByLabel('Filter field').selectOption('title');
    await page.getByLabel('Operator').selectOption('contains');
    await page.getByLabel('Value').fill('dune');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await poll(() => page.locator('.status').first().textContent()).toContain('2 records');

    // Sort by pages, ascending then descending.
    const titles = async () => {
      const headers = await page.locator('table.grid thead th').allTextContents();
      const column = headers.findIndex((header) => header.trim() === 'title') + 1;
      return page.locator(`table.grid tbody tr td:nth-child(${column})`).allTextContents();
    };
    await page.getByRole('button', { name: /^pages/ }).click();
    await poll(titles).toEqual(['Dune', 'Children of Dune']);
    await page.getByRole('button', { name: /^pages/ }).click();
    await poll(titles).toEqual(['Children of Dune', 'Dune']);
    await poll(() => page.locator('th[aria-sort]').getAttribute('aria-sort')).toBe('descending');
    await expectAccessible(page);
    await screenshot(page, 'console-records');

    // Remove the filters, edit a record, a refused edit keeps its message at the field.
    await page.getByRole('button', { name: /Remove filter title/ }).click();
    await page.getByRole('button', { name: /Remove filter pages/ }).click();
    await poll(() => page.locator('.status').first().textContent()).toContain('4 records');
    const row = page.locator('table.grid tbody tr', { hasText: 'Hyperion' });
    await row.getByRole('button', { name: /^Edit record/ }).click();
    await page.getByLabel('pages', { exact: true }).fill('many');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByLabel('pages', { exact: true }).getAttribute('aria-invalid'))
      .toBe('true');
    await page.getByLabel('pages', { exact: true }).fill('483');
    await page.getByRole('button', { name: 'Save' }).click();
    await poll(() => row.textContent()).toContain('483');

    // Pagination: two records a page.
    await page.getByLabel('Records per page').selectOption('10');
    await poll(() => page.locator('.pager').textContent()).toContain('Page 1 of 1');

    // Delete asks once more, then deletes.
    await row.getByRole('button', { name: /^Delete record/ }).click();
    await row.getByRole('button', { name: /^Confirm delete/ }).click();
    await poll(() => page.locator('.status').first().textContent()).toContain('3 records');
    const listed = await tenant.owner.get(`/api/apps/${tenant.app.slug}/datatables/books/data/`);
    expect(listed.body.total).toBe(3);

    // Sign out: the session ends, the console sends the browser to the sign-in page.
    // One navigation: a second one started while the first is under way aborted it (CI saw net::ERR_ABORTED).
    const toSignIn: string[] = [];
    const counted = (request: { url(): string; isNavigationRequest(): boolean }) => {
      if (request.isNavigationRequest() && new URL(request.url()).pathname === '/sign-in')
        toSignIn.push(request.url());
    };
    page.on('request', counted);
    // The sign-in page answers slowly, as on a busy machine: the emptied identity comes back first.
    const slowSignIn = async (route: { continue(): Promise<void> }) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    };
    await page.route(/\/sign-in\?/, slowSignIn);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in/);
    await page.waitForLoadState('load');
    await page.unroute(/\/sign-in\?/, slowSignIn);
    page.off('request', counted);
    expect(toSignIn).toHaveLength(1);
    await page.goto(url('/console/'));
    await page.waitForURL(/\/sign-in\?return_to=/);
  });

  it("a new user creates an organization, a site and an app from the console (the README's first steps)", async () => {
    const newcomer = await createUser(platform, { password });
    await signIn(newcomer.user.username);
    await poll(() => page.locator('main').textContent()).toContain('not a member of any organization');
    const orgName = unique('Acme');
    await page.getByLabel("New organization's name").fill(orgName);
    await page.getByRole('button', { name: 'Create organization' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Choose a site');
    await poll(() => page.locator('.crumbs').textContent()).toContain(orgName);
    // One product name: the header's first crumb and the title say Tenantbase, as the hosted pages do.
    expect(await page.locator('.crumbs a').first().textContent()).toBe('Tenantbase');
    expect(await page.title()).toBe('Console · Tenantbase');
    // Refused by the API: the message at the field.
    await page.getByRole('button', { name: 'Create site' }).click();
    await poll(() => page.getByLabel("New site's name").getAttribute('aria-invalid')).toBe('true');
    const siteName = unique('Shop');
    await page.getByLabel("New site's name").fill(siteName);
    await page.getByRole('button', { name: 'Create site' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Choose an app');
    await poll(() => page.locator('.site-name').textContent()).toContain(siteName);
    await page.getByLabel("New app's name").fill('Storefront');
    await page.getByRole('button', { name: 'Create app' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Tables of storefront');
    await expectAccessible(page);
    await screenshot(page, 'console-tables');
    // A malformed address (a crafted link) is read as far as it goes, never a blank page.
    await page.goto(url('/console/#/o/%E0%A4/s/x'));
    await poll(() => page.locator('h1').count()).toBe(1);
    await poll(() => page.locator('.crumbs').textContent()).toContain('%E0%A4');
  });

  it('invites, resends and cancels invitations, and lists members', async () => {
    await signIn(tenant.ownerUser.username);
    await page.goto(url(`/console/#/o/${tenant.organization.slug}/people`));
    await poll(() => page.locator('h1').textContent()).toBe('People');
    await poll(() => page.locator('main').textContent()).toContain(`${tenant.ownerUser.username}`);
    await page.getByLabel('E-mail address').fill('not an address');
    await page.getByRole('button', { name: 'Invite' }).click();
    await poll(() => page.getByLabel('E-mail address').getAttribute('aria-invalid')).toBe('true');
    const email = `${unique('guest')}@example.com`;
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Invite' }).click();
    await poll(() => page.locator('main').textContent()).toContain(`Invitation sent to ${email}.`);
    await poll(() => page.getByRole('row', { name: new RegExp(email) }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'console-people');
    await page.getByRole('button', { name: `Resend the invitation to ${email}` }).click();
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain(`Invitation to ${email} sent again.`);
    await page.getByRole('button', { name: `Cancel the invitation to ${email}` }).click();
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain(`Invitation to ${email} cancelled.`);
    await poll(() => page.getByRole('row', { name: new RegExp(email) }).count()).toBe(0);
  });

  it('invites with a group and a site permission; the invitee joins through the hosted page and shows as a member', async () => {
    const groupName = unique('Editors');
    const group = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/groups/`, {
      name: groupName,
    });
    expect(group.status, group.text).toBe(201);
    await signIn(tenant.ownerUser.username);
    await page.goto(url(`/console/#/o/${tenant.organization.slug}/people`));
    const email = `${unique('joiner')}@example.com`;
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('group', { name: 'Groups to join' }).getByLabel(groupName).check();
    await page.getByLabel('Site', { exact: true }).selectOption(tenant.site.slug);
    await page.getByLabel('view_site', { exact: true }).check();
    await page.getByRole('button', { name: 'Invite' }).click();
    const row = page.getByRole('row', { name: new RegExp(email) });
    await poll(() => row.textContent()).toContain(`${tenant.site.slug}: view_site`);

    // The invitee accepts in a browser of their own, through the hosted invitation page.
    const token = await latestToken(platform, email);
    const invitee = await browser.newContext();
    const inviteePage = await invitee.newPage();
    await inviteePage.goto(url(`/invitations/${token}?return_to=${encodeURIComponent('/console/')}`));
    await inviteePage.getByLabel('First name').fill('Ada');
    await inviteePage.getByLabel('Last name').fill('Joiner');
    await inviteePage.getByLabel('Password', { exact: true }).fill(password);
    await inviteePage.getByRole('button', { name: /Create my account/ }).click();
    await inviteePage.waitForURL(/\/console\/$/);
    await poll(() => inviteePage.locator('main').textContent()).toContain(tenant.organization.slug);
    await browser.closeContext(invitee);

    // The owner's console: the invitation is gone from the list, the person is a member.
    await page.reload();
    await poll(() => page.getByRole('row', { name: /Ada Joiner/ }).count()).toBe(1);
    // In the group the invitation named, and holding the site permission it carried.
    await poll(() => page.getByRole('row', { name: /Ada Joiner/ }).textContent()).toContain(groupName);
    const joined = await tenant.owner.get(
      `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/`,
    );
    const members = await tenant.owner.get(`/api/cloud/organizations/${tenant.organization.slug}/members/`);
    const ada = members.body.results.find(
      (member: { user: { email: string } }) => member.user.email === email,
    );
    const grant = joined.body.find((entry: { user_id: number }) => entry.user_id === ada.user.id);
    expect(grant.permissions).toEqual(['view_site']);
    const invitations = page.locator('section[aria-labelledby="invitations-title"]');
    await poll(() => invitations.getByRole('row', { name: new RegExp(email) }).count()).toBe(0);
  });

  it('shows secrets with their values hidden until revealed', async () => {
    const type = await tenant.owner.post('/api/secret-types/', {
      name: unique('apikey').replace(/-/g, '_'),
      sensitivity_level: 'sensitive',
      schema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
    });
    expect(type.status, type.text).toBe(201);
    const typeSlug: string = type.body.slug ?? type.body.data?.slug;
    const created = await tenant.owner.post('/api/secrets/', {
      secret_type: typeSlug,
      key: 'mail.token',
      value: { token: 'tok-hidden-123' },
    });
    expect(created.status, created.text).toBe(201);
    await signIn(tenant.ownerUser.username);
    await page.goto(url(`/console/#/o/${tenant.organization.slug}/s/${tenant.site.slug}/secrets`));
    await poll(() => page.locator('main').textContent()).toContain('mail.token');
    expect(await page.locator('main').textContent()).not.toContain('tok-hidden-123');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Reveal the value of mail.token' }).click();
    await poll(() => page.locator('main').textContent()).toContain('tok-hidden-123');

    // Set a typed secret through the form: a value refused by the type's schema first, then accepted.
    await page.getByLabel('Secret type').selectOption(typeSlug);
    await page.getByLabel('Key', { exact: true }).fill('sms.token');
    await page.getByLabel('Value (JSON)').fill('{"token": 5}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(() => page.getByLabel('Value (JSON)').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Value (JSON)').fill('{"token": "sms-secret-9"}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(() => page.locator('main').textContent()).toContain('Secret sms.token set.');
    await poll(() => page.getByRole('row', { name: /sms\.token/ }).count()).toBe(1);
    const secretsTable = page.getByRole('table', { name: 'Secrets of the site', exact: true });
    expect(await secretsTable.textContent()).not.toContain('sms-secret-9');
    // Changed again, then its history: two entries, no value.
    await page.getByLabel('Key', { exact: true }).fill('sms.token');
    await page.getByLabel('Value (JSON)').fill('{"token": "sms-secret-10"}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(() => page.locator('main').textContent()).toContain('Secret sms.token set.');
    await page.getByRole('button', { name: 'History of sms.token' }).click();
    const history = page.locator('section[aria-labelledby="history-title"] li');
    await poll(() => history.count()).toBe(2);
    const entries = (await history.allTextContents()).join(' ');
    expect(entries).toMatch(/changed by/);
    expect(entries).toMatch(/created by/);
    expect(entries).not.toContain('sms-secret');
    await expectAccessible(page);
    await screenshot(page, 'console-secrets');
  });

  it('a member with view_site sees read-only screens: no button that could only answer 403', async () => {
    const viewer = await createUser(platform, { password });
    await grantSite(tenant, viewer.user.id, ['view_site']);
    await signIn(viewer.user.username);
    await page.goto(url(`/console/${place()}`));
    await poll(() => page.locator('h1').textContent()).toBe(`Tables of ${tenant.app.slug}`);
    await poll(() => page.locator('main').textContent()).toContain('books');
    expect(await page.getByRole('button', { name: 'Create table' }).count()).toBe(0);
    await openTable('books');
    await poll(() => page.locator('.status').first().textContent()).toContain('3 records');
    expect(await page.getByRole('button', { name: 'New record' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Edit|Delete) record/ }).count()).toBe(0);
    await poll(() => page.locator('main').textContent()).toContain('Read only');
    await expectAccessible(page);
    await screenshot(page, 'console-read-only');
    await page.goto(url(`/console/#/o/${tenant.organization.slug}/people`));
    await poll(() => page.locator('main').textContent()).toContain('managed by the organization');
    expect(await page.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    await page.goto(url(`/console/#/o/${tenant.organization.slug}/s/${tenant.site.slug}/secrets`));
    await expect
      .poll(() => page.locator('main').textContent())
      .toContain("needs the site's change permission");
    expect(await page.getByRole('button', { name: 'Set secret' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create app' }).count()).toBe(0);
  });
});
