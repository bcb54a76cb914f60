import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';
import { expectAccessible, screenshot } from './browser';
import { ConsoleHarness, password } from './console-harness';

/**
 * The console keeps your place (docs/console.md): the place and the records grid's view (filters, sort, page,
 * search) live in the address and survive every section change and a reload, the default order is stated and
 * stable, the header names every level, and the grid fits a phone as a list of cards with nothing wider than the
 * screen.
 */

vi.setConfig({ testTimeout: 120_000 });
/** `expect.poll` with a bound that a loaded machine meets: never a verdict on speed. */
const ui = new ConsoleHarness('console-place', 30_000);
const { poll, url, signIn } = ui;
let platform: TestPlatform;
let tenant: Tenant;
let page: Page;
/** A plain member of the organization with view_site only. */
let viewer: { user: { id: number; username: string } };
/** The books' titles in the order they were created. */
const titles: string[] = [];

const tablesPath = () => `/api/apps/${tenant.app.slug}/datatables/`;

beforeAll(async () => {
  platform = await ui.start();
  tenant = await createTenant(platform);
  const table = await tenant.owner.post(tablesPath(), {
    name: 'books',
    schema: {
      fields: [
        { name: 'title', type: 'string', constraints: { required: true } },
        { name: 'pages', type: 'integer' },
        { name: 'created_at', type: 'datetime' },
      ],
    },
  });
  expect(table.status, table.text).toBe(201);
  viewer = await createUser(platform, { password });
  await grantSite(tenant, viewer.user.id, ['view_site']);
  // Created in an order that is neither the titles' nor the pages': the default order must be the creation's.
  for (let i = 0; i < 25; i++) titles.push(`Book ${String.fromCharCode(90 - i)} ${i}`);
  for (const [i, title] of titles.entries()) {
    const created = await tenant.owner.post(`${tablesPath()}books/data/`, {
      title,
      pages: ((i * 7) % 25) * 10,
    });
    expect(created.status, created.text).toBe(201);
  }
}, 240_000);
afterAll(() => ui.stop());
beforeEach(async () => {
  ({ page } = await ui.open());
  return ui.close;
});

const place = () => `#/o/${tenant.organization.slug}/s/${tenant.site.slug}/a/${tenant.app.slug}`;
/** The organization's name, as the API answered its creation. */
const organizationName = () => (tenant.organization as { name?: string }).name ?? '';
const siteName = () => (tenant.site as { name?: string }).name ?? '';
const crumbs = () => page.locator('.crumbs').textContent();
const firstTitles = (n: number) =>
  page.locator('table.grid tbody tr').evaluateAll(
    (rows: any[], n) =>
      rows.slice(0, n).map((row) => {
        // The value, without the cell's "Edit" button.
        const cell = row.querySelector('td[data-field="title"]');
        return (cell?.querySelector('.cell-edit > span') ?? cell)?.textContent ?? '';
      }),
    n,
  );

async function openTable(name: string) {
  await signIn(tenant.ownerUser.username);
  await page.goto(url(`/console/${place()}/t/${name}`));
  await poll(() => page.locator('h1').textContent()).toBe(`Table ${name}`);
}

describe('console: the place and the view live in the address', () => {
  it('keeps the site, the app and the table through every section, and leads back to the same page', async () => {
    await openTable('books');
    // Every level by its name.
    await poll(crumbs).toContain(`Organization: ${organizationName()}`);
    await poll(crumbs).toContain(`Site: ${siteName()}`);
    await poll(crumbs).toContain(`App: ${tenant.app.name}`);
    await page.getByRole('button', { name: 'Next page' }).click();
    await poll(() => page.locator('.pager').textContent()).toContain('Page 2 of 2');
    for (const section of ['People', 'Secrets', 'Access', 'Events', 'Sign-in']) {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section }).click();
      await poll(() => new URL(page.url()).hash).toMatch(new RegExp(`/t/books/${section.toLowerCase()}`));
      await poll(crumbs).toContain(`Site: ${siteName()}`);
      await poll(crumbs).toContain(`App: ${tenant.app.name}`);
    }
    await page.reload();
    await poll(crumbs).toContain(`App: ${tenant.app.name}`);
    // One click back to the table, on the page it was left at.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Data' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Table books');
    await poll(() => page.locator('.pager').textContent()).toContain('Page 2 of 2');
    await expectAccessible(page);
  });

  it('states a stable default order: the records as created, the same after a reload', async () => {
    await openTable('books');
    await poll(() => page.locator('.order').textContent()).toBe(
      "Oldest first (by created_at, then id). Sort by a column's header.",
    );
    await poll(() => firstTitles(5)).toEqual(titles.slice(0, 5));
    await page.reload();
    await poll(() => firstTitles(20)).toEqual(titles.slice(0, 20));
  });

  it('keeps filters, sort and page in the address through a reload', async () => {
    await openTable('books');
    await page.getByLabel('Filter field').selectOption('pages');
    await page.getByLabel('Operator').selectOption('gte');
    await page.getByLabel('Value', { exact: true }).fill('50');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByRole('button', { name: 'title', exact: true }).click();
    await page.getByLabel('Records per page').selectOption('10');
    await poll(() => page.locator('.pager').textContent()).toContain('Page 1 of 2');
    await page.getByRole('button', { name: 'Next page' }).click();
    await poll(() => page.locator('.pager').textContent()).toContain('Page 2 of 2');
    const hash = decodeURIComponent(new URL(page.url()).hash);
    expect(hash).toContain('sort=title.asc');
    expect(hash).toContain('page=2');
    expect(hash).toContain('size=10');
    expect(hash).toContain('"operator":"gte"');
    const expected = titles
      .filter((_, i) => ((i * 7) % 25) * 10 >= 50)
      .sort()
      .slice(10, 20);
    await poll(() => firstTitles(10)).toEqual(expected);

    await page.reload();
    await poll(() => page.locator('.pager').textContent()).toContain('Page 2 of 2');
    await poll(() => page.getByRole('list', { name: 'Active filters' }).textContent()).toContain('pages');
    await poll(() => page.getByRole('columnheader', { name: 'title' }).getAttribute('aria-sort')).toBe(
      'ascending',
    );
    await poll(() => firstTitles(10)).toEqual(expected);
    await poll(() => page.locator('.order').textContent()).toBe('Sorted by title, ascending.');
    await screenshot(page, 'console-records-view');
  });

  it('fits the screen: no horizontal scroll at 1280x800 and at 390x844, where the grid is a list of cards', async () => {
    const fits = () =>
      page.evaluate(() => {
        const window = globalThis as any;
        return window.document.documentElement.scrollWidth <= window.innerWidth;
      });
    // What sticks out, named, so a failure says where.
    const wider = () =>
      page.evaluate(() => {
        const window = globalThis as any;
        return [...window.document.querySelectorAll('body *')]
          .filter((element: any) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
          .filter((element: any) => !element.parentElement?.closest('table, .field'))
          .map(
            (element: any) =>
              `${element.closest('section')?.getAttribute('aria-labelledby') ?? ''} ${element.tagName.toLowerCase()}.${element.className} ${element.getAttribute('aria-label') ?? element.textContent?.slice(0, 30)}`,
          )
          .slice(0, 10);
      });
    await openTable('books');
    await poll(() => firstTitles(1)).toEqual(titles.slice(0, 1));
    expect(await wider()).toEqual([]);
    expect(await fits()).toBe(true);
    expect(
      await page
        .locator('table.grid tbody tr')
        .first()
        .evaluate((row: any) => (globalThis as any).getComputedStyle(row).display),
    ).toBe('table-row');
    await page.setViewportSize({ width: 390, height: 844 });
    await poll(() =>
      page
        .locator('table.grid tbody tr')
        .first()
        .evaluate((row: any) => (globalThis as any).getComputedStyle(row).display),
    ).toBe('block');
    expect(await wider()).toEqual([]);
    expect(await fits()).toBe(true);
    // Every card is inside the screen, and shows each value under its field's name.
    const widest = await page
      .locator('table.grid tbody tr')
      .evaluateAll((rows: any[]) => Math.max(...rows.map((row) => row.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(390);
    expect(
      await page
        .locator('table.grid tbody tr td[data-field="title"]')
        .first()
        .evaluate((cell: any) => (globalThis as any).getComputedStyle(cell, '::before').content),
    ).toBe('"title: "');
    // The key is shortened, the whole key kept for screen readers.
    const key = await page.locator('table.grid tbody tr td[data-field="id"]').first().textContent();
    expect(key).toMatch(/^[0-9a-f]{8}…[0-9a-f-]{36}$/);
    await expectAccessible(page);
    await screenshot(page, 'console-records-cards');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('edits a cell in place: the API refuses at the cell, Escape keeps the value, Enter saves only that field', async () => {
    const table = await tenant.owner.post(tablesPath(), {
      name: 'notes',
      schema: {
        fields: [
          { name: 'title', type: 'string', constraints: { required: true, maxLength: 20 } },
          { name: 'body', type: 'string' },
        ],
      },
    });
    expect(table.status, table.text).toBe(201);
    const created = await tenant.owner.post(`${tablesPath()}notes/data/`, { title: 'Draft', body: 'kept' });
    expect(created.status, created.text).toBe(201);
    await openTable('notes');
    await page.getByRole('button', { name: 'Edit title of Draft' }).click();
    const input = page.getByRole('textbox', { name: 'title of Draft' });
    await poll(() =>
      input.evaluate((element: any) => element === (globalThis as any).document.activeElement),
    ).toBe(true);
    // Escape closes it, the value unchanged.
    await input.fill('Other');
    await input.press('Escape');
    await poll(() => page.locator('td[data-field="title"]').first().textContent()).toContain('Draft');
    // Too long for the field: the API's message in the cell, the typed value kept.
    await page.getByRole('button', { name: 'Edit title of Draft' }).click();
    await input.fill('x'.repeat(30));
    await input.press('Enter');
    await poll(() => input.getAttribute('aria-invalid')).toBe('true');
    expect(await input.inputValue()).toBe('x'.repeat(30));
    await expectAccessible(page);
    await input.fill('Final');
    await input.press('Enter');
    await poll(() => page.locator('td[data-field="title"]').first().textContent()).toContain('Final');
    const stored = await tenant.owner.get(`${tablesPath()}notes/data/${created.body.data.id}/`);
    expect(stored.body.data).toMatchObject({ title: 'Final', body: 'kept' });
  });

  it('ignores a malformed view in a crafted link instead of failing', async () => {
    await signIn(tenant.ownerUser.username);
    await page.goto(url(`/console/${place()}/t/books?filter=%7Bnot-json&page=-3&size=7&sort=nosuch.asc`));
    await poll(() => page.locator('h1').textContent()).toBe('Table books');
    await poll(() => page.locator('.pager').textContent()).toContain('Page 1 of 2');
    await poll(() => firstTitles(3)).toEqual(titles.slice(0, 3));
  });
});

describe('console: people and permissions in words', () => {
  const people = () => `#/o/${tenant.organization.slug}/people`;

  it('heads the invite form with its own title, offers a role, and names permissions with a line of explanation', async () => {
    await signIn(tenant.ownerUser.username);
    await page.goto(url(`/console/${people()}`));
    const form = page.getByRole('form', { name: 'Invite someone' });
    await poll(() => form.count()).toBe(1);
    // The form's heading is its own; "Pending invitations" heads the list.
    expect(
      await form.evaluate((element: any) => element.closest('section')?.querySelector('h2')?.textContent),
    ).toBe('Invite someone');
    await form.getByLabel('Site', { exact: true }).selectOption(tenant.site.slug);
    const change = form.getByRole('checkbox', { name: 'Change', exact: true });
    await poll(() => change.count()).toBe(1);
    const described = await change.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).textContent()).toBe(
      'Creates and edits records, sets secrets and their tags.',
    );
    for (const label of ['Access', 'View', 'Delete', 'Configure', 'Manage people', 'Administer'])
      expect(await form.getByRole('checkbox', { name: label, exact: true }).count()).toBe(1);
    expect(await form.textContent()).not.toMatch(/_site/);
    // A role ticks its bundle; ticking one more box makes it "Custom".
    await form.getByLabel('Role on the site').selectOption('editor');
    for (const label of ['Access', 'View', 'Change', 'Delete'])
      expect(await form.getByRole('checkbox', { name: label, exact: true }).isChecked()).toBe(true);
    expect(await form.getByRole('checkbox', { name: 'Configure', exact: true }).isChecked()).toBe(false);
    await form.getByRole('checkbox', { name: 'Configure', exact: true }).check();
    expect(await form.getByLabel('Role on the site').inputValue()).toBe('custom');
    // The members' table says each permission's words once, above its checkboxes.
    await poll(() => page.locator('dl.legend').first().textContent()).toContain(
      'ConfigureDefines tables, secret types, tags, apps, roles, functions and subscriptions.',
    );
    await poll(() =>
      page.getByRole('checkbox', { name: `View for ${viewer.user.username}`, exact: true }).isChecked(),
    ).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'console-invite-role');
  });

  it('clears an error as the field becomes valid, without another submit', async () => {
    await signIn(tenant.ownerUser.username);
    await page.goto(url(`/console/${people()}`));
    const form = page.getByRole('form', { name: 'Invite someone' });
    const email = form.getByLabel('E-mail address');
    await email.fill('not an address');
    await form.getByRole('button', { name: 'Invite' }).click();
    await poll(() => email.getAttribute('aria-invalid')).toBe('true');
    // Still not an address: the browser's own check replaces the API's message, still at the field.
    await email.fill('still-not');
    await poll(() => email.getAttribute('aria-invalid')).toBe('true');
    await email.fill('fixed@example.com');
    await poll(() => email.getAttribute('aria-invalid')).toBe(null);
    expect(await form.locator('.field-error').count()).toBe(0);
    expect(await email.getAttribute('aria-describedby')).toBe(null);
  });

  it('the read-only hints name the permission a checkbox carries', async () => {
    await signIn(viewer.user.username);
    await page.goto(url(`/console/${place()}/t/books`));
    await poll(() => page.locator('.read-only').first().textContent()).toBe(
      'Read only: changing records needs the “Change” permission on this site.',
    );
    await page.goto(url(`/console/${place()}/access`));
    await poll(() => page.locator('main').textContent()).toContain(
      'Read only: defining roles needs the “Configure” permission on this site.',
    );
    await poll(() => page.locator('main').textContent()).toContain(
      'Read only: assigning roles needs the “Manage people” permission on this site.',
    );
    await expectAccessible(page);
  });
});
