import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';
import { expectAccessible, screenshot } from './browser';
import { ConsoleHarness } from './console-harness';

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
let context: BrowserContext;
let page: Page;
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
  ({ context, page } = await ui.open());
  await signIn(tenant.ownerUser.username);
  return ui.close;
});

const place = () => `#/o/${tenant.organization.slug}/s/${tenant.site.slug}/a/${tenant.app.slug}`;
const crumbs = () => page.locator('.crumbs').textContent();
const firstTitles = (n: number) =>
  page
    .locator('table.grid tbody tr')
    .evaluateAll(
      (rows, n) =>
        rows.slice(0, n).map((row) => row.querySelector('td[data-field="title"]')?.textContent ?? ''),
      n,
    );

async function openTable(name: string) {
  await page.goto(url(`/console/${place()}/t/${name}`));
  await poll(() => page.locator('h1').textContent()).toBe(`Table ${name}`);
}

describe('console: the place and the view live in the address', () => {
  it('keeps the site, the app and the table through every section, and leads back to the same page', async () => {
    await openTable('books');
    // Every level by its name.
    await poll(crumbs).toContain(`Organization: ${tenant.organization.name}`);
    await poll(crumbs).toContain(`Site: ${tenant.site.name}`);
    await poll(crumbs).toContain(`App: ${tenant.app.name}`);
    await page.getByRole('button', { name: 'Next page' }).click();
    await poll(() => page.locator('.pager').textContent()).toContain('Page 2 of 2');
    for (const section of ['People', 'Secrets', 'Access', 'Events', 'Sign-in']) {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section }).click();
      await poll(() => new URL(page.url()).hash).toMatch(new RegExp(`/t/books/${section.toLowerCase()}`));
      await poll(crumbs).toContain(`Site: ${tenant.site.name}`);
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
    await screenshot(page, 'console-records');
  });

  it('fits the screen: no horizontal scroll at 1280x800 and at 390x844, where the grid is a list of cards', async () => {
    const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= globalThis.innerWidth);
    // What sticks out, named, so a failure says where.
    const wider = () =>
      page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((element) => element.getBoundingClientRect().right > globalThis.innerWidth + 0.5)
          .filter((element) => !element.parentElement?.closest('table, .field'))
          .map(
            (element) =>
              `${element.closest('section')?.getAttribute('aria-labelledby') ?? ''} ${element.tagName.toLowerCase()}.${element.className} ${element.getAttribute('aria-label') ?? element.textContent?.slice(0, 30)}`,
          )
          .slice(0, 10),
      );
    await openTable('books');
    await poll(() => firstTitles(1)).toEqual(titles.slice(0, 1));
    expect(await wider()).toEqual([]);
    expect(await fits()).toBe(true);
    expect(
      await page
        .locator('table.grid tbody tr')
        .first()
        .evaluate((row) => getComputedStyle(row).display),
    ).toBe('table-row');
    await page.setViewportSize({ width: 390, height: 844 });
    await poll(() =>
      page
        .locator('table.grid tbody tr')
        .first()
        .evaluate((row) => getComputedStyle(row).display),
    ).toBe('block');
    expect(await wider()).toEqual([]);
    expect(await fits()).toBe(true);
    // Every card is inside the screen, and shows each value under its field's name.
    const widest = await page
      .locator('table.grid tbody tr')
      .evaluateAll((rows) => Math.max(...rows.map((row) => row.getBoundingClientRect().right)));
    expect(widest).toBeLessThanOrEqual(390);
    expect(
      await page
        .locator('table.grid tbody tr td[data-field="title"]')
        .first()
        .evaluate((cell) => getComputedStyle(cell, '::before').content),
    ).toBe('"title: "');
    // The key is shortened, the whole key kept for screen readers.
    const key = await page.locator('table.grid tbody tr td[data-field="id"]').first().textContent();
    expect(key).toMatch(/^[0-9a-f]{8}…[0-9a-f-]{36}$/);
    await expectAccessible(page);
    await screenshot(page, 'console-records-cards');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('ignores a malformed view in a crafted link instead of failing', async () => {
    await page.goto(url(`/console/${place()}/t/books?filter=%7Bnot-json&page=-3&size=7&sort=nosuch.asc`));
    await poll(() => page.locator('h1').textContent()).toBe('Table books');
    await poll(() => page.locator('.pager').textContent()).toContain('Page 1 of 2');
    await poll(() => firstTitles(3)).toEqual(titles.slice(0, 3));
  });
});
