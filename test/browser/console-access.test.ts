import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider';
import { adminPassword, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant, unique } from '../support/tenant';
import { expectAccessible, freePort, screenshot } from './browser';
import { ConsoleHarness, password } from './console-harness';

/**
 * The console's screens outside the data tables (docs/console.md) in a real browser against the platform's real
 * HTTP server: people (roles, groups, site permissions, invitations to several sites), access (an app-role
 * hierarchy, site roles, memberships with expiry, bulk assign and revoke), secrets (types, tags, delete, history
 * past 50), sign-in settings (a social app whose client secret is never shown back, tested against a real OpenID
 * provider), events (a function and a subscription), and what members with change_site or view_site see.
 */

vi.setConfig({ testTimeout: 120_000 });
/** `expect.poll` with a bound that a loaded machine meets: never a verdict on speed. */
const ui = new ConsoleHarness('console-access', 20_000);
const { poll, url, signIn } = ui;
let platform: TestPlatform;
let idp: IdentityProvider;
let tenant: Tenant;
let context: BrowserContext;
let page: Page;
/** Plain members of the tenant's organization, with view_site on its site. */
let alice: { user: { id: number; username: string } };
let bob: { user: { id: number; username: string } };

beforeAll(async () => {
  const idpPort = await freePort();
  platform = await ui.start({ SOCIAL_LOGIN_ALLOWED_HOSTS: `127.0.0.1:${idpPort}` });
  idp = await startIdentityProvider({ port: idpPort, redirectUri: `${platform.baseUrl}/sign-in/callback` });
  tenant = await createTenant(platform);
  alice = await createUser(platform, { password });
  bob = await createUser(platform, { password });
  await grantSite(tenant, alice.user.id, ['view_site']);
  await grantSite(tenant, bob.user.id, ['view_site']);
}, 240_000);
afterAll(async () => {
  await ui.stop();
  await idp?.stop();
});
beforeEach(async () => {
  ({ context, page } = await ui.open());
  return ui.close;
});

const org = () => `#/o/${tenant.organization.slug}`;
const site = () => `${org()}/s/${tenant.site.slug}`;
const main = () => page.locator('main').textContent();

async function open(hash: string, heading: string) {
  await page.goto(url(`/console/${hash}`));
  await poll(() => page.locator('h1').textContent()).toBe(heading);
}

describe('console: README\'s "Using it locally", without curl', () => {
  it('a superuser creates an organization, a site and an app, adds a new account and lets it read the site', async () => {
    await signIn('admin', adminPassword);
    await poll(() => page.locator('h1').textContent()).toBe('Choose an organization');
    const create = async (what: string, name: string, next: string) => {
      await page.getByLabel(`New ${what}'s name`).fill(name);
      await page.getByRole('button', { name: `Create ${what}` }).click();
      await poll(() => page.locator('h1').textContent()).toBe(next);
    };
    await create('organization', unique('Acme'), 'Choose a site');
    const orgSlug = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    await create('site', unique('Shop'), 'Choose an app');
    const siteSlug = decodeURIComponent(new URL(page.url()).hash.split('/')[4] ?? '');
    await page.getByLabel("New app's name").fill('Storefront');
    await page.getByRole('button', { name: 'Create app' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Tables of storefront');

    // A second user, a new account: the password policy's message at the password field, then added.
    await page.getByRole('link', { name: 'People' }).click();
    const form = page.getByRole('form', { name: 'Add a member' });
    const boName = unique('bo');
    const email = `${boName}@example.com`;
    await form.getByLabel("Member's e-mail").fill(email);
    await form.getByLabel("Member's username").fill(boName);
    await form.getByLabel("Member's password").fill('password1234');
    await form.getByRole('button', { name: 'Add member' }).click();
    await poll(() => form.getByLabel("Member's password").getAttribute('aria-invalid')).toBe('true');
    // The policy's own words, at the field.
    await poll(() =>
      form.locator('.field', { has: page.getByLabel("Member's password") }).textContent(),
    ).toMatch(/This password is too easy to guess/);
    await form.getByLabel("Member's password").fill('plum-Kettle-Orbit-7');
    await form.getByRole('button', { name: 'Add member' }).click();
    await poll(main).toMatch(new RegExp(`${boName} \\(user \\d+\\) is now a member\\.`));
    await expectAccessible(page);
    await screenshot(page, 'console-people-add-member');
    const listed = await platform.adminApi.get(`/api/cloud/organizations/${orgSlug}/members/`);
    const bo = listed.body.results.find((m: { user: { username: string } }) => m.user.username === boName);
    expect(bo.role).toBe('member');

    // An existing account, named by e-mail; an unknown one refused at the field.
    const carol = await createUser(platform, { password });
    await form.getByLabel('Account').selectOption('existing');
    await form.getByLabel('Username or e-mail').fill('nobody-here@example.com');
    await form.getByRole('button', { name: 'Add member' }).click();
    await poll(() => form.getByLabel('Username or e-mail').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Username or e-mail').fill(carol.user.email);
    await form.getByRole('button', { name: 'Add member' }).click();
    await poll(main).toContain(`${carol.user.username} (user ${carol.user.id}) is now a member.`);

    // Its site permissions: access_site and view_site, as the README's PUT.
    await page.getByLabel(`Access for ${boName}`, { exact: true }).check();
    await page.getByLabel(`View for ${boName}`, { exact: true }).check();
    await page.getByRole('button', { name: `Save the permissions of ${boName}` }).click();
    await poll(main).toContain(`${boName} now holds`);
    const grants = await platform.adminApi.get(
      `/api/cloud/organizations/${orgSlug}/sites/${siteSlug}/permissions/`,
    );
    expect(
      grants.body.find((grant: { user_id: number }) => grant.user_id === bo.user_id).permissions.sort(),
    ).toEqual(['access_site', 'view_site']);

    // Bo signs in with the new password and reads the site, without a write button.
    await context.clearCookies();
    await signIn(boName, 'plum-Kettle-Orbit-7');
    await open(`#/o/${orgSlug}/s/${siteSlug}`, 'Choose an app');
    await poll(main).toContain('Storefront');
    expect(await page.getByRole('button', { name: 'Create app' }).count()).toBe(0);
    // The superuser's form is not there for an organization's plain member.
    await open(`#/o/${orgSlug}/people`, 'People');
    expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
  });

  it("is not offered to an organization's owner who is not a superuser (the API's rule)", async () => {
    await signIn(tenant.ownerUser.username);
    await open(`${org()}/people`, 'People');
    await poll(() => page.getByRole('button', { name: 'Invite' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
  });
});

describe('console: people', () => {
  it("changes a member's role, manages a group and its members, grants and revokes a site permission", async () => {
    await signIn(tenant.ownerUser.username);
    await open(`${org()}/people`, 'People');
    const alicesName = alice.user.username;

    // Role: member → admin → member, as the API says.
    const role = page.getByLabel(`Role of ${alicesName}`);
    await poll(() => role.count()).toBe(1);
    await role.selectOption('admin');
    await poll(main).toContain(`${alicesName} is now an admin.`);
    const members = await tenant.owner.get(`/api/cloud/organizations/${tenant.organization.slug}/members/`);
    expect(members.body.results.find((m: { user_id: number }) => m.user_id === alice.user.id).role).toBe(
      'admin',
    );
    await role.selectOption('member');
    await poll(main).toContain(`${alicesName} is now a member.`);

    // A group: refused name first, then created, a member added, renamed, the member removed, deleted.
    await page.getByRole('button', { name: 'Create group' }).click();
    await poll(() => page.getByLabel("New group's name").getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel("New group's name").fill('Editors');
    await page.getByRole('button', { name: 'Create group' }).click();
    await poll(() => page.getByRole('heading', { name: 'Editors' }).count()).toBe(1);
    await page.getByLabel('Add to Editors').selectOption({ label: alicesName });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await poll(() => page.getByRole('list', { name: 'Members of Editors' }).textContent()).toContain(
      alicesName,
    );
    // The members table shows the group too.
    await poll(() =>
      page
        .getByRole('row', { name: new RegExp(alicesName) })
        .first()
        .textContent(),
    ).toContain('Editors');
    await expectAccessible(page);
    await screenshot(page, 'console-people-groups');
    await page.getByRole('button', { name: 'Rename Editors' }).click();
    await page.getByLabel('New name').fill('Writers');
    await page.getByRole('button', { name: 'Save name' }).click();
    await poll(() => page.getByRole('heading', { name: 'Writers' }).count()).toBe(1);
    await page.getByRole('button', { name: `Remove ${alicesName} from Writers` }).click();
    await poll(main).toContain(`${alicesName} removed from Writers.`);
    await page.getByRole('button', { name: 'Delete group Writers' }).click();
    await page.getByRole('button', { name: 'Confirm: delete group Writers' }).click();
    await poll(() => page.getByRole('heading', { name: 'Writers' }).count()).toBe(0);

    // Site permissions: grant change_site to Bob, then revoke it.
    const change = page.getByLabel(`Change for ${bob.user.username}`, { exact: true });
    await poll(() => page.getByLabel(`View for ${bob.user.username}`, { exact: true }).isChecked()).toBe(
      true,
    );
    await change.check();
    await page.getByRole('button', { name: `Save the permissions of ${bob.user.username}` }).click();
    await poll(main).toContain(`${bob.user.username} now holds`);
    const grants = () =>
      tenant.owner
        .get(`/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/permissions/`)
        .then(
          (answer) =>
            answer.body.find((grant: { user_id: number }) => grant.user_id === bob.user.id)?.permissions ??
            [],
        );
    expect((await grants()).sort()).toEqual(['change_site', 'view_site']);
    await expectAccessible(page);
    await screenshot(page, 'console-site-permissions');
    await change.uncheck();
    await page.getByRole('button', { name: `Save the permissions of ${bob.user.username}` }).click();
    await poll(grants).toEqual(['view_site']);
  });

  it('invites with permissions on two sites at once', async () => {
    const second = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/sites/`, {
      name: unique('Second'),
    });
    expect(second.status).toBe(201);
    await signIn(tenant.ownerUser.username);
    await open(`${org()}/people`, 'People');
    const email = `${unique('two-sites')}@example.com`;
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Site', { exact: true }).selectOption(tenant.site.slug);
    await page.getByLabel('View', { exact: true }).check();
    await page.getByRole('button', { name: 'Add another site' }).click();
    await page.getByLabel('Site 2', { exact: true }).selectOption(second.body.slug);
    await page.getByLabel('Change on site 2', { exact: true }).check();
    await page.getByRole('button', { name: 'Invite' }).click();
    const row = page.getByRole('row', { name: new RegExp(email) });
    await poll(() => row.textContent()).toContain(`${tenant.site.slug}: View`);
    await poll(() => row.textContent()).toContain(`${second.body.slug}: Change`);
  });
});

describe('console: access', () => {
  it('builds an app-role hierarchy, a site role, a membership with expiry, and bulk assigns and revokes', async () => {
    await signIn(tenant.ownerUser.username);
    await open(`${site()}/a/${tenant.app.slug}/access`, 'Access');
    await poll(main).toContain('This app has no role yet.');
    await page.getByLabel('App role name').fill('Manager');
    await page.getByRole('button', { name: 'Create role' }).click();
    await poll(main).toContain('Role Manager created.');
    await page.getByLabel('App role name').fill('Clerk');
    await page.getByLabel('Parent role').selectOption({ label: 'Manager' });
    await page.getByRole('button', { name: 'Create role' }).click();
    await poll(main).toContain('Role Clerk created.');
    // Clerk is shown inside Manager's branch.
    const tree = page.getByRole('navigation', { name: 'Role hierarchy' });
    const manager = tree.locator('li', { hasText: 'Manager' }).first();
    await poll(() => manager.locator('ul li').textContent()).toContain('Clerk');
    const clerk = `${tenant.app.slug}-clerk`;
    const managerSlug = `${tenant.app.slug}-manager`;

    // Moving: Manager under its own child is the API's cycle rule, shown at the field; Clerk to the root and back.
    await tree.getByRole('button', { name: 'Move role Manager' }).click();
    await tree.getByLabel('New parent of Manager').selectOption({ label: 'Clerk' });
    await tree.getByRole('button', { name: 'Save parent' }).click();
    const parentField = tree.getByLabel('New parent of Manager');
    await poll(() => parentField.getAttribute('aria-invalid')).toBe('true');
    await poll(() =>
      tree.locator('.field', { has: page.getByLabel('New parent of Manager') }).textContent(),
    ).toContain('cannot be the parent of');
    await tree.getByRole('button', { name: 'Cancel' }).click();
    await tree.getByRole('button', { name: 'Move role Clerk' }).click();
    await tree.getByLabel('New parent of Clerk').selectOption('');
    await tree.getByRole('button', { name: 'Save parent' }).click();
    await poll(() => tree.locator('ul.root > li').count()).toBe(2);
    await tree.getByRole('button', { name: 'Move role Clerk' }).click();
    await tree.getByLabel('New parent of Clerk').selectOption(managerSlug);
    await tree.getByRole('button', { name: 'Save parent' }).click();
    await poll(main).toContain(`Role Clerk moved under ${managerSlug}.`);
    await poll(() => manager.locator('ul li').textContent()).toContain('Clerk');

    await page.getByLabel('Site role name').fill('Staff');
    await page
      .getByRole('group', { name: /App roles it bundles/ })
      .getByLabel('Clerk')
      .check();
    await page.getByRole('button', { name: 'Create site role' }).click();
    await poll(() => page.getByRole('row', { name: /Staff/ }).textContent()).toContain(clerk);
    // Its bundle edited: Manager added, then taken out again.
    await page.getByRole('button', { name: 'Edit site role Staff' }).click();
    await page
      .getByRole('group', { name: /Bundled app roles/ })
      .getByLabel('Manager')
      .check();
    await page.getByRole('button', { name: 'Save site role' }).click();
    await poll(() => page.getByRole('row', { name: /Staff/ }).textContent()).toContain(managerSlug);
    const bundle = await tenant.owner.get('/api/roles/staff');
    expect(bundle.body.data.app_roles.map((r: { slug: string }) => r.slug).sort()).toEqual([
      clerk,
      managerSlug,
    ]);
    await page.getByRole('button', { name: 'Edit site role Staff' }).click();
    await page
      .getByRole('group', { name: /Bundled app roles/ })
      .getByLabel('Manager')
      .uncheck();
    await page.getByRole('button', { name: 'Save site role' }).click();
    await poll(() => page.getByRole('row', { name: /Staff/ }).textContent()).not.toContain(managerSlug);

    // A membership with expiry: assigned, listed, revoked.
    await page.getByLabel('Role', { exact: true }).selectOption(clerk);
    await page.getByLabel('Person').selectOption(alice.user.username);
    await page.getByLabel('Expires (optional)').fill('2099-06-30T12:00');
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await poll(main).toContain(`${alice.user.username} holds ${clerk} until`);
    const holders = page.locator('section[aria-labelledby="holders-title"] tbody');
    await poll(() => holders.textContent()).toContain(alice.user.username);
    // The expiry itself is shown (the API's holder list gives it), and changed: never, a past date refused.
    const aliceRow = holders.getByRole('row', { name: new RegExp(alice.user.username) });
    await poll(() => aliceRow.textContent()).toMatch(/active, until .*2099/);
    await page.getByRole('button', { name: `Change expiry of ${alice.user.username}` }).click();
    const newExpiry = page.getByLabel(`New expiry of ${alice.user.username} (empty: never)`);
    await newExpiry.fill('2001-01-01T00:00');
    await page.getByRole('button', { name: 'Save expiry' }).click();
    await poll(() => newExpiry.getAttribute('aria-invalid')).toBe('true');
    await newExpiry.fill('');
    await page.getByRole('button', { name: 'Save expiry' }).click();
    await poll(() => aliceRow.textContent()).toContain('active, no expiry');
    await page.getByRole('button', { name: `Change expiry of ${alice.user.username}` }).click();
    await newExpiry.fill('2099-06-30T12:00');
    await page.getByRole('button', { name: 'Save expiry' }).click();
    await poll(() => aliceRow.textContent()).toMatch(/active, until .*2099/);
    const roles = await tenant.owner.get(`/api/users/${alice.user.username}/roles`);
    expect(roles.body.data.app_roles.map((r: { slug: string }) => r.slug)).toEqual([clerk]);
    await expectAccessible(page);
    await screenshot(page, 'console-access');
    await page.getByRole('button', { name: `Revoke ${clerk} from ${alice.user.username}` }).click();
    await poll(main).toContain(`${alice.user.username} no longer holds ${clerk}.`);

    // Bulk: two people, two roles, with progress; then revoked.
    const bulk = page.locator('section[aria-labelledby="bulk-title"]');
    await bulk.getByLabel(alice.user.username).check();
    await bulk.getByLabel(bob.user.username).check();
    await bulk.getByLabel('Clerk (app role)').check();
    await bulk.getByLabel('Staff (site role)').check();
    await bulk.getByRole('button', { name: 'Assign selected' }).click();
    await poll(() => bulk.textContent()).toContain('2 of 2 people done');
    await poll(() => bulk.textContent()).toContain('Assigned 2 roles for 2 people.');
    const held = async (username: string) => {
      const answer = await tenant.owner.get(`/api/users/${username}/roles`);
      return [
        ...answer.body.data.app_roles.map((r: { slug: string }) => r.slug),
        ...answer.body.data.site_roles.map((r: { slug: string }) => r.slug),
      ].sort();
    };
    expect(await held(bob.user.username)).toEqual([clerk, 'staff']);
    expect(await held(alice.user.username)).toEqual([clerk, 'staff']);
    await expectAccessible(page);
    await bulk.getByRole('button', { name: 'Revoke selected' }).click();
    await poll(() => bulk.textContent()).toContain('Revoked 2 roles for 2 people.');
    expect(await held(bob.user.username)).toEqual([]);
    expect(await held(alice.user.username)).toEqual([]);

    // Deleting the parent moves the child up to the root.
    await tree.getByRole('button', { name: 'Delete role Manager' }).click();
    await tree.getByRole('button', { name: 'Confirm: delete role Manager' }).click();
    await poll(() => tree.locator('ul.root > li').allTextContents()).toHaveLength(1);
    await poll(() => tree.textContent()).not.toContain('Manager');
  });
});

describe('console: secrets', () => {
  it('creates a secret type with a JSON Schema, sets a typed secret, tags it, pages its history, deletes it', async () => {
    await signIn(tenant.ownerUser.username);
    await open(`${site()}/secrets`, 'Secrets');
    await page.getByLabel('Type name').fill('smtp_login');
    await page.getByLabel('Sensitivity').selectOption('sensitive');
    await page
      .getByLabel('JSON Schema')
      .fill('{"type": "object", "properties": {"user": {"type": "string"}}');
    await poll(() => page.getByLabel('JSON Schema').getAttribute('aria-invalid')).toBe('true');
    await page
      .getByLabel('JSON Schema')
      .fill('{"type": "object", "properties": {"user": {"type": "string"}}, "required": ["user"]}');
    await page.getByRole('button', { name: 'Create type' }).click();
    await poll(() => page.getByRole('row', { name: /smtp_login/ }).textContent()).toContain('sensitive');
    await page.getByLabel('Tag name').fill('mail');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await poll(() => page.getByRole('list', { name: 'Tags of the site' }).textContent()).toContain('mail');

    await page.getByLabel('Secret type').selectOption('smtp-login');
    await page.getByLabel('Key', { exact: true }).fill('smtp.login');
    await page.getByLabel('Value (JSON)').fill('{"user": 7}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(() => page.getByLabel('Value (JSON)').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Value (JSON)').fill('{"user": "postmaster-secret"}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(main).toContain('Secret smtp.login set.');

    // Its tags: the value goes from the API to the API, never on the page.
    await page.getByRole('button', { name: 'Tags of smtp.login' }).click();
    await page.getByRole('group', { name: 'Tags' }).getByLabel('mail').check();
    await page.getByRole('button', { name: 'Save tags' }).click();
    await poll(() => page.getByRole('row', { name: /smtp\.login/ }).textContent()).toContain('mail');
    expect(await main()).not.toContain('postmaster-secret');
    const read = await tenant.owner.get('/api/secrets/smtp.login/');
    expect(read.body).toMatchObject({ tags: ['mail'], value: { user: 'postmaster-secret' } });

    // History past 50 entries: 53 more changes through the API, then two pages.
    for (let i = 0; i < 53; i++) {
      const put = await tenant.owner.put('/api/secrets/smtp.login/', {
        secret_type: 'smtp-login',
        value: { user: `u${i}` },
        tags: ['mail'],
      });
      expect(put.status).toBe(200);
    }
    await page.getByRole('button', { name: 'History of smtp.login' }).click();
    const history = page.locator('section[aria-labelledby="history-title"]');
    await poll(() => history.locator('li').count()).toBe(50);
    await poll(() => history.textContent()).toContain('Entries 1–50 of 55');
    await history.getByRole('button', { name: 'Older entries' }).click();
    await poll(() => history.locator('li').count()).toBe(5);
    await poll(() => history.textContent()).toContain('Entries 51–55 of 55');
    expect(await history.locator('li').last().textContent()).toMatch(/created by/);
    expect(await history.getByRole('button', { name: 'Older entries' }).isDisabled()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'console-secret-types');

    await page.getByRole('button', { name: 'Delete secret smtp.login' }).click();
    await page.getByRole('button', { name: 'Confirm: delete secret smtp.login' }).click();
    await poll(main).toContain('Secret smtp.login deleted.');
    expect((await tenant.owner.get('/api/secrets/smtp.login/')).status).toBe(404);

    // The type edited (description and schema; its sensitivity cannot change), then deleted now that no secret uses it.
    await page.getByRole('button', { name: 'Edit type smtp_login' }).click();
    await poll(() => page.getByLabel('JSON Schema').inputValue()).toContain('"required"');
    expect(await page.getByLabel('Sensitivity').count()).toBe(0);
    await page.getByLabel('Type description').fill('Login of the mail relay');
    await page.getByLabel('JSON Schema').fill('{"type": "object", "required": ["user", "host"]}');
    await page.getByRole('button', { name: 'Save type' }).click();
    await poll(main).toContain('Secret type smtp_login saved.');
    const type = await tenant.owner.get('/api/secret-types/smtp-login/');
    expect(type.body).toMatchObject({
      description: 'Login of the mail relay',
      sensitivity_level: 'sensitive',
      schema: { required: ['user', 'host'] },
    });
    // A system type has no delete button (the API never deletes one).
    const system = await tenant.owner.get('/api/secret-types/?type=system');
    for (const item of system.body.items as { name: string }[])
      expect(await page.getByRole('button', { name: `Delete type ${item.name}` }).count()).toBe(0);
    await page.getByRole('button', { name: 'Delete type smtp_login' }).click();
    await page.getByRole('button', { name: 'Confirm: delete type smtp_login' }).click();
    await poll(main).toContain('Secret type smtp_login deleted.');
    expect((await tenant.owner.get('/api/secret-types/smtp-login/')).status).toBe(404);
  });

  it("sets an app's own secret, and shows what the app reads: its own, else the site's", async () => {
    await tenant.owner.post('/api/secret-types/', {
      name: 'app_setting',
      sensitivity_level: 'private',
      schema: { type: 'object' },
    });
    for (const [key, colour] of [
      ['theme', 'site-blue'],
      ['banner', 'site-banner'],
    ])
      await tenant.owner.post('/api/secrets/', { secret_type: 'app-setting', key, value: { colour } });
    await signIn(tenant.ownerUser.username);
    await open(`${site()}/secrets`, 'Secrets');
    await page.getByLabel('Level').selectOption(tenant.app.slug);
    await poll(main).toContain(`The app ${tenant.app.slug} has no secret of its own.`);
    await page.getByLabel('Secret type').selectOption('app-setting');
    await page.getByLabel('Key', { exact: true }).fill('theme');
    await page.getByLabel('Value (JSON)').fill('{"colour": "app-green"}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(main).toContain('Secret theme set.');
    const appTable = page.getByRole('table', { name: `Secrets of the app ${tenant.app.slug}` });
    await poll(() => appTable.locator('tbody tr').count()).toBe(1);
    const appLevel = await tenant.owner.get(`/api/secrets/?app=${tenant.app.slug}`);
    expect(appLevel.body.items).toMatchObject([{ key: 'theme', value: { colour: 'app-green' } }]);
    expect((await tenant.owner.get('/api/secrets/theme/')).body.value).toEqual({ colour: 'site-blue' });

    // The app's lookup: its own theme, the site's banner.
    const lookUp = page.getByRole('form', { name: `What the app ${tenant.app.slug} reads` });
    await lookUp.getByLabel(`Key the app ${tenant.app.slug} reads`).fill('theme');
    await lookUp.getByRole('button', { name: 'Look up' }).click();
    await poll(() => lookUp.textContent()).toContain(`theme (the app's own): {"colour":"app-green"}`);
    await lookUp.getByLabel(`Key the app ${tenant.app.slug} reads`).fill('banner');
    await lookUp.getByRole('button', { name: 'Look up' }).click();
    await poll(() => lookUp.textContent()).toContain(`banner (the site's): {"colour":"site-banner"}`);
    await page.getByRole('button', { name: 'Reveal the value of theme' }).click();
    await poll(() => appTable.textContent()).toContain('app-green');
    await expectAccessible(page);
    await screenshot(page, 'console-secrets-app-level');

    // Back at the site level: its own theme and banner, not the app's.
    await page.getByLabel('Level').selectOption('');
    const siteTable = page.getByRole('table', { name: 'Secrets of the site', exact: true });
    await poll(() => siteTable.getByRole('row', { name: /theme/ }).count()).toBe(1);
    await page.getByRole('button', { name: 'Reveal the value of theme' }).click();
    await poll(() => siteTable.textContent()).toContain('site-blue');
    expect(await siteTable.textContent()).not.toContain('app-green');

    // The app's secret deleted at its level; the site's stays.
    await page.getByLabel('Level').selectOption(tenant.app.slug);
    await page.getByRole('button', { name: 'Delete secret theme' }).click();
    await page.getByRole('button', { name: 'Confirm: delete secret theme' }).click();
    await poll(main).toContain(`The app ${tenant.app.slug} has no secret of its own.`);
    expect((await tenant.owner.get('/api/secrets/theme/')).status).toBe(200);
  });
});

describe('console: sign-in settings', () => {
  it('creates a social app whose client secret is never shown back, edits it keeping the secret, tests it', async () => {
    await signIn(tenant.ownerUser.username);
    await open(`${site()}/sign-in`, 'Sign-in settings');
    await poll(main).toContain('This site has no login provider yet.');
    await page.getByRole('button', { name: 'Add a login provider' }).click();
    await page.getByLabel('Provider id').fill('corp');
    await page.getByLabel('Display name').fill('Corp SSO');
    await page.getByLabel('Client id').fill(idp.clientId);
    await page.getByLabel('Client secret').fill(idp.clientSecret);
    await page.getByRole('button', { name: 'Create provider' }).click();
    // Refused at the field: an OpenID Connect app needs its discovery URL.
    await poll(() => page.getByLabel('Discovery URL').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Discovery URL').fill(idp.discoveryUrl);
    await page.getByRole('button', { name: 'Create provider' }).click();
    const row = page.getByRole('row', { name: /Corp SSO/ });
    await poll(() => row.textContent()).toContain('OpenID Connect');
    await poll(() => row.textContent()).toContain('yes');
    const shown = async () => {
      const values = await page
        .locator('input')
        .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value));
      return `${await page.content()} ${values.join(' ')}`;
    };
    expect(await shown()).not.toContain(idp.clientSecret);

    // Edit: the secret field is empty; saved empty, the stored secret stays.
    await page.getByRole('button', { name: 'Edit Corp SSO' }).click();
    await poll(() => page.getByLabel('Display name').inputValue()).toBe('Corp SSO');
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    expect(await shown()).not.toContain(idp.clientSecret);
    expect(await shown()).not.toContain('***HIDDEN***');
    await expectAccessible(page);
    await screenshot(page, 'console-sign-in');
    await page.getByLabel('Display name').fill('Corp Login');
    await page.getByRole('button', { name: 'Save provider' }).click();
    await poll(() => page.getByRole('row', { name: /Corp Login/ }).count()).toBe(1);

    // The test: configuration, discovery and key set, against the real provider (the secret is still stored).
    await page.getByRole('button', { name: 'Test Corp Login' }).click();
    const checks = page.locator('section[aria-labelledby="checks-title"]');
    await poll(() => checks.locator('h2').textContent()).toBe('Test of Corp Login: passed');
    expect(await checks.textContent()).toContain('discovery');
    expect(await shown()).not.toContain(idp.clientSecret);
    await expectAccessible(page);
  });
});

describe('console: events', () => {
  it('registers a function, subscribes it to an event, unsubscribes and deletes it', async () => {
    await signIn(tenant.ownerUser.username);
    await open(`${site()}/a/${tenant.app.slug}/events`, 'Events');
    await poll(main).toContain('This app has no function yet.');
    await page.getByLabel('Function name').fill('Welcome');
    await page.getByLabel('Target').fill('../outside.mjs');
    await page.getByRole('button', { name: 'Register function' }).click();
    await poll(() => page.getByRole('alert').textContent()).toMatch(/target/i);
    await page.getByLabel('Target').fill('allow.mjs');
    await page.getByRole('button', { name: 'Register function' }).click();
    await poll(() => page.getByRole('row', { name: /Welcome/ }).textContent()).toContain('allow.mjs');
    await page.getByLabel('Event').selectOption('POST_USER_CREATE');
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    const subscriptions = page.locator('section[aria-labelledby="subscriptions-title"] tbody');
    await poll(() => subscriptions.textContent()).toContain('POST_USER_CREATE');
    const listed = await tenant.owner.get(`/api/apps/${tenant.app.slug}/events/POST_USER_CREATE/`);
    expect(listed.body.data.subscribers.map((s: { function_name: string }) => s.function_name)).toEqual([
      'Welcome',
    ]);
    await expectAccessible(page);
    await screenshot(page, 'console-events');
    await page.getByRole('button', { name: 'Unsubscribe Welcome from POST_USER_CREATE' }).click();
    await poll(main).toContain('No function of this app is subscribed.');
    await page.getByRole('button', { name: 'Delete function Welcome' }).click();
    await page.getByRole('button', { name: 'Confirm: delete function Welcome' }).click();
    await poll(main).toContain('This app has no function yet.');
  });
});

describe('console: what members see', () => {
  it('a member with change_site sees the write actions it holds, and only those', async () => {
    const writer = await createUser(platform, { password });
    await grantSite(tenant, writer.user.id, ['change_site']);
    await tenant.owner.post('/api/secret-types/', {
      name: 'plain_token',
      sensitivity_level: 'private',
      schema: { type: 'object' },
    });
    await signIn(writer.user.username);
    await open(`${site()}/secrets`, 'Secrets');
    await poll(() => page.getByRole('button', { name: 'Set secret' }).count()).toBe(1);
    await page.getByLabel('Key', { exact: true }).fill('writer.token');
    await page.getByLabel('Value (JSON)').fill('{"token": "w"}');
    await page.getByRole('button', { name: 'Set secret' }).click();
    await poll(main).toContain('Secret writer.token set.');
    await poll(() => page.getByRole('button', { name: 'Tags of writer.token' }).count()).toBe(1);
    // No delete (delete_site), no type or tag creation (manage_site).
    expect(await page.getByRole('button', { name: /^Delete secret/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create type' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create tag' }).count()).toBe(0);
    await expectAccessible(page);
    await open(`${site()}/access`, 'Access');
    await poll(main).toContain('Read only: defining roles needs the “Configure” permission on this site.');
    expect(await page.getByRole('button', { name: 'Create role' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Assign selected' }).count()).toBe(0);
    await open(site(), 'Choose an app');
    expect(await page.getByRole('button', { name: 'Create app' }).count()).toBe(0);
  });

  it('a member with view_site only sees read-only screens', async () => {
    await signIn(bob.user.username);
    await open(`${site()}/secrets`, 'Secrets');
    await poll(main).toContain('needs the “Change” permission on this site');
    expect(await page.getByRole('button', { name: 'Set secret' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Tags of/ }).count()).toBe(0);
    await open(`${site()}/a/${tenant.app.slug}/events`, 'Events');
    await poll(main).toContain(
      'Read only: changing functions and subscriptions needs the “Configure” permission',
    );
    expect(await page.getByRole('button', { name: 'Register function' }).count()).toBe(0);
    await open(`${site()}/sign-in`, 'Sign-in settings');
    await poll(main).toContain("set by the organization's owner");
    await poll(main).toContain('Corp Login');
    expect(await page.getByRole('button', { name: /^(Edit|Test) / }).count()).toBe(0);
    await open(`${org()}/people`, 'People');
    await poll(main).toContain('managed by the organization');
    expect(await page.getByRole('button', { name: 'Create group' }).count()).toBe(0);
    expect(await page.getByLabel(/^Role of/).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'console-read-only-access');
  });
});
