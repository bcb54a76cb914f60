import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite, type Tenant } from '../support/tenant';
import { expectAccessible, screenshot } from './browser';
import { ConsoleHarness, password } from './console-harness';

/**
 * The console's data screens (docs/console.md) in a real browser against the platform's real HTTP server: schema
 * changes from the table screen, an import of 1,000 records from a file with progress, a cancelled and a refused
 * import, filters on JSON paths, aggregation by group, foreign keys as populated links, bulk delete, deleted
 * records (restore, delete for good), and a record's relationships as a tree with edges added and removed.
 * One platform and one browser for the file; the console is built from its sources into a directory of its own.
 */

vi.setConfig({ testTimeout: 120_000 });
/** `expect.poll` with a bound that a loaded machine meets (tables are DDL, imports are many writes). */
const ui = new ConsoleHarness('console-data', 30_000);
const { poll, url, signIn } = ui;
let platform: TestPlatform;
let tenant: Tenant;
let context: BrowserContext;
let page: Page;
const authors: Record<string, string> = {};

const tablesPath = () => `/api/apps/${tenant.app.slug}/datatables/`;
const booksPath = () => `${tablesPath()}books/data/`;

beforeAll(async () => {
  platform = await ui.start();
  tenant = await createTenant(platform);
  const table = await tenant.owner.post(tablesPath(), {
    name: 'authors',
    schema: { fields: [{ name: 'name', type: 'string', constraints: { required: true } }] },
  });
  expect(table.status, table.text).toBe(201);
  for (const name of ['Frank Herbert', 'Ursula K. Le Guin']) {
    const created = await tenant.owner.post(`${tablesPath()}authors/data/`, { name });
    expect(created.status, created.text).toBe(201);
    authors[name] = created.body.data.id;
  }
}, 240_000);
afterAll(() => ui.stop());
beforeEach(async () => {
  ({ context, page } = await ui.open());
  await signIn(tenant.ownerUser.username);
  return ui.close;
});

const place = () => `#/o/${tenant.organization.slug}/s/${tenant.site.slug}/a/${tenant.app.slug}`;
const status = () => page.locator('.toolbar .status').textContent();
const schema = () => page.locator('section[aria-labelledby="schema-title"]').textContent();

async function openTable(name: string) {
  await page.goto(url(`/console/${place()}/t/${name}`));
  await poll(() => page.locator('h1').textContent()).toBe(`Table ${name}`);
}

async function openRecord(table: string, id: string, label: string) {
  await page.goto(url(`/console/${place()}/t/${table}/r/${id}`));
  await poll(() => page.locator('h1').textContent()).toContain(`Record ${label}`);
}

async function addFilter(field: string, operator: string, value: string, path?: string) {
  await page.getByLabel('Filter field').selectOption(field);
  if (path !== undefined) await page.getByLabel('JSON path (optional)').fill(path);
  await page.getByLabel('Operator').selectOption(operator);
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByRole('button', { name: 'Add filter' }).click();
}

async function count(query: string): Promise<number> {
  const answer = await tenant.owner.get(`${booksPath()}?${query}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body.total;
}

/** The 1,000 records of the import: every tenth has an award, statuses in turn, two authors. */
const statuses = ['draft', 'published', 'archived'];
function importedBooks() {
  return Array.from({ length: 1000 }, (_, index) => {
    const i = index + 1;
    return {
      title: `Book ${String(i).padStart(4, '0')}`,
      pages: 100 + i,
      status: statuses[i % 3],
      author: i % 2 ? authors['Frank Herbert'] : authors['Ursula K. Le Guin'],
      metadata: i % 10 === 0 ? { genre: 'scifi', awards: { hugo: true } } : { genre: 'fantasy' },
    };
  });
}

describe('console data screens', () => {
  it('creates a table with a foreign key and a relationship type, and changes its schema with the API’s messages at the field', async () => {
    const scratch = await tenant.owner.post(tablesPath(), {
      name: 'scratchpad',
      schema: { fields: [{ name: 'note', type: 'string' }] },
    });
    expect(scratch.status, scratch.text).toBe(201);
    await page.goto(url(`/console/${place()}`));
    await poll(() => page.locator('h1').textContent()).toBe(`Tables of ${tenant.app.slug}`);
    await page.getByLabel('Table name').fill('books');
    const fields: [string, string, string?][] = [
      ['title', 'string'],
      ['pages', 'integer'],
      ['status', 'string'],
      ['author', 'string', 'authors'],
    ];
    for (const [index, [name, type, references]] of fields.entries()) {
      if (index > 0) await page.getByRole('button', { name: 'Add a field' }).click();
      await page.getByLabel(`Field ${index + 1} name`).fill(name);
      if (references) await page.getByLabel(`Field ${index + 1} references`).selectOption(references);
      else await page.getByLabel(`Field ${index + 1} type`).selectOption(type);
    }
    await page.getByLabel('Field 1 required').check();
    await page.getByLabel(/^Full-text search on/).fill('title');
    await page.getByLabel(/Soft delete/).check();
    await page.getByLabel(/^Relationship types/).fill('sequel_of');
    await page.getByRole('button', { name: 'Create table' }).click();
    await poll(() => page.locator('h1').textContent()).toBe('Table books');
    await poll(schema).toContain('author → authors.id');
    await poll(schema).toContain('sequel_of (inverse sequel_of_inverse)');

    // Add a field: refused first (a reserved word), the message at the name; then added.
    await page.getByLabel("New field's name").fill('select');
    await page.getByLabel("New field's type").selectOption('object');
    await page.getByRole('button', { name: 'Add field', exact: true }).click();
    await poll(() => page.getByLabel("New field's name").getAttribute('aria-invalid')).toBe('true');
    await poll(() => page.locator('.field-error').first().textContent()).toMatch(/reserved/i);
    await page.getByLabel("New field's name").fill('metadata');
    await page.getByRole('button', { name: 'Add field', exact: true }).click();
    await poll(schema).toContain('Field metadata added.');
    await poll(() => page.getByRole('rowheader', { name: 'metadata' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'console-schema-change');

    // An index: an unknown field refused at the field, then one on pages; dropped after a confirmation.
    await page.getByLabel('Index fields (comma-separated)').fill('nothing');
    await page.getByRole('button', { name: 'Add index' }).click();
    await expect
      .poll(() => page.getByLabel('Index fields (comma-separated)').getAttribute('aria-invalid'))
      .toBe('true');
    await page.getByLabel('Index fields (comma-separated)').fill('pages');
    await page.getByRole('button', { name: 'Add index' }).click();
    await poll(schema).toContain('index pages_idx (pages)');
    await page.getByRole('button', { name: 'Drop index pages_idx' }).click();
    await page.getByRole('button', { name: 'Confirm dropping index pages_idx' }).click();
    await poll(schema).toContain('Index pages_idx dropped.');
    await poll(schema).not.toContain('index pages_idx (pages)');
    // Keep an index on status for the grid's filters.
    await page.getByLabel('Index fields (comma-separated)').fill('status');
    await page.getByRole('button', { name: 'Add index' }).click();
    await poll(schema).toContain('index status_idx (status)');

    // Relationship types: a name that is a field's is refused at the field; one added, then removed.
    await page.getByLabel('Type name').fill('title');
    await page.getByRole('button', { name: 'Add relationship type' }).click();
    await poll(() => page.getByLabel('Type name').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Type name').fill('adapted_from');
    await page.getByLabel('Inverse name (optional)').fill('adaptations');
    await page.getByRole('button', { name: 'Add relationship type' }).click();
    await poll(schema).toContain('adapted_from (inverse adaptations)');
    await page.getByRole('button', { name: 'Remove type adapted_from' }).click();
    await page.getByRole('button', { name: 'Confirm removing type adapted_from' }).click();
    await poll(schema).toContain('Relationship type adapted_from removed.');
    await poll(schema).not.toContain('adapted_from (inverse');

    // Dropping a field the search vector uses is refused, the API's message in its row.
    await page.getByRole('button', { name: 'Drop field title' }).click();
    await page.getByRole('button', { name: 'Confirm dropping field title and its values' }).click();
    const titleRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'title', exact: true }) });
    await poll(() => titleRow.locator('.field-error').textContent()).toMatch(/cannot be dropped/);

    // Dropping a referenced table is refused; an unreferenced one is dropped once its name is typed.
    await openTable('authors');
    await page.getByRole('button', { name: 'Drop table authors…' }).click();
    await page.getByLabel('Type authors to confirm').fill('authors');
    await page.getByRole('button', { name: 'Drop table authors and its records' }).click();
    await poll(() => page.locator('.danger-zone [role="alert"]').textContent()).toMatch(/referenc/i);
    await openTable('scratchpad');
    await page.getByRole('button', { name: 'Drop table scratchpad…' }).click();
    const drop = page.getByRole('button', { name: 'Drop table scratchpad and its records' });
    expect(await drop.isDisabled()).toBe(true);
    await page.getByLabel('Type scratchpad to confirm').fill('scratchpad');
    await expectAccessible(page);
    await drop.click();
    await poll(() => page.locator('h1').textContent()).toBe(`Tables of ${tenant.app.slug}`);
    expect((await tenant.owner.get(`${tablesPath()}scratchpad/`)).status).toBe(404);
  });

  it('imports 1,000 records from a file with progress; a cancelled import says how many landed; a refused one which rows and why', async () => {
    await openTable('books');
    const file = page.getByLabel('File (CSV or JSON)');
    await file.setInputFiles({
      name: 'books.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(importedBooks())),
    });
    await poll(() => page.locator('main').textContent()).toContain('1000 records read from books.json.');
    await page.getByRole('button', { name: 'Import 1000 records' }).click();
    await expect
      .poll(() => page.locator('.import-status').textContent(), { timeout: 90_000 })
      .toBe('1000 of 1000 records imported from books.json.');
    const progress = page.getByRole('progressbar', { name: 'Import progress' });
    expect(await progress.getAttribute('value')).toBe('1000');
    expect(await progress.getAttribute('max')).toBe('1000');
    await poll(status).toContain('1000 records');
    expect(await count('page_size=1')).toBe(1000);
    await expectAccessible(page);
    await screenshot(page, 'console-import');

    // A cancelled import: the second batch is held in flight until Cancel is pressed, then lands; nothing after.
    let posts = 0;
    let held: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      held = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const isData = (address: URL) => address.pathname.endsWith('/datatables/books/data/');
    const holdSecond = async (route: Route) => {
      if (route.request().method() === 'POST' && ++posts === 2) {
        held();
        await released;
      }
      await route.continue();
    };
    await page.route(isData, holdSecond);
    const extras = Array.from({ length: 500 }, (_, index) => ({
      title: `Extra ${index + 1}`,
      status: 'extra',
    }));
    await file.setInputFiles({
      name: 'extras.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(extras)),
    });
    await page.getByRole('button', { name: 'Import 500 records' }).click();
    await inFlight;
    await poll(() => page.locator('.import-status').textContent()).toBe('100 of 500 records imported…');
    expect(await progress.getAttribute('value')).toBe('100');
    await page.getByRole('button', { name: 'Cancel import' }).click();
    release();
    await expect
      .poll(() => page.locator('.import-status').textContent())
      .toBe('Import cancelled: 200 of 500 records imported (records 1–200); the others were not sent.');
    await page.unroute(isData, holdSecond);
    expect(posts).toBe(2);
    expect(await count('status=extra&page_size=1')).toBe(200);

    // A refused batch: nothing of it lands, the rows refused and why are listed, the file and choices stay.
    const csv = 'title,pages\nGood one,10\nBad one,many\n"Quoted, title",12\n';
    await page.getByLabel('Records per request').selectOption('10');
    await file.setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import 3 records' }).click();
    await expect
      .poll(() => page.locator('.import-status').textContent())
      .toBe('Import stopped: 0 of 3 records imported before the refused batch.');
    await poll(() => page.getByRole('list', { name: 'Refused records' }).textContent()).toMatch(
      /^Record 2: pages: /,
    );
    expect(await page.getByRole('alert').first().textContent()).toContain('Records 1–3 were refused');
    expect(await file.evaluate((input: any) => input.files?.[0]?.name)).toBe('bad.csv');
    expect(await page.getByLabel('Records per request').inputValue()).toBe('10');
    expect(await page.getByRole('button', { name: 'Import 3 records' }).isEnabled()).toBe(true);
    expect(await count('title=Good one&page_size=1')).toBe(0);
    await expectAccessible(page);
  });

  it('filters on a JSON path, searches within the filters, aggregates by group and shows foreign keys as populated links', async () => {
    await openTable('books');
    await addFilter('metadata', 'eq', 'true', 'awards.hugo');
    await poll(status).toContain('100 records');
    await poll(() => page.getByRole('list', { name: 'Active filters' }).textContent()).toContain(
      'metadata.awards.hugo equals true',
    );
    // A JSON operator on the whole field, with the path filter: the same hundred.
    await page.getByLabel('Filter field').selectOption('metadata');
    await page.getByLabel('JSON path (optional)').fill('');
    await page.getByLabel('Operator').selectOption('has_key');
    await page.getByLabel('Value', { exact: true }).fill('awards');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await poll(() => page.getByRole('list', { name: 'Active filters' }).textContent()).toContain(
      'metadata has the key awards',
    );
    await poll(status).toContain('100 records');
    await expectAccessible(page);
    await screenshot(page, 'console-json-filter');

    // Full-text search combined with the filters, paged like the grid.
    await page.getByLabel('Search text').fill('book');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await poll(() => page.locator('.hits').locator('..').textContent()).toContain('100 matches for “book”');
    await poll(() => page.locator('.pager').textContent()).toContain('Page 1 of 5');
    await page.getByRole('button', { name: 'Clear search' }).click();

    // Aggregation by status over the filtered records.
    await page.getByLabel('Group by').selectOption('status');
    await page.getByLabel('Function').selectOption('avg');
    await page.getByLabel('Of the field').selectOption('pages');
    await page.getByRole('button', { name: 'Aggregate', exact: true }).click();
    const result = page.locator('table.aggregates');
    await poll(() => result.locator('caption').textContent()).toBe('3 groups by status');
    const rows: string[][] = [];
    for (const row of await result.locator('tbody tr').all())
      rows.push(await row.locator('td').allTextContents());
    // i = 10k for k = 1…100: status by i % 3 = k % 3; pages 100 + i.
    const expected = statuses.map((name, rest) => {
      const ks = Array.from({ length: 100 }, (_, k) => k + 1).filter((k) => k % 3 === rest);
      return [name, ks.length, ks.reduce((sum, k) => sum + 100 + 10 * k, 0) / ks.length];
    });
    expected.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows.map(([group, groupCount, avg]) => [group, Number(groupCount), Number(avg)])).toEqual(
      expected,
    );
    await expectAccessible(page);
    await screenshot(page, 'console-aggregate');

    // The author column: links labelled with the referenced record's name (populate), to that record.
    await page.getByRole('button', { name: /^Remove filter metadata has the key/ }).click();
    await page.getByRole('button', { name: /^Remove filter metadata.awards.hugo/ }).click();
    await addFilter('title', 'eq', 'Book 0001');
    await poll(status).toContain('1 record');
    const link = page.locator('table.grid tbody').getByRole('link', { name: 'Frank Herbert' });
    await poll(() => link.getAttribute('href')).toContain(`/t/authors/r/${authors['Frank Herbert']}`);
    await link.click();
    await poll(() => page.locator('h1').textContent()).toContain('Record Frank Herbert');
  });

  it('deletes selected records in bulk, lists deleted ones, restores one and deletes one for good', async () => {
    await openTable('books');
    await addFilter('title', 'startswith', 'Book 000');
    await poll(status).toContain('9 records');
    await page.getByLabel('Select every record of this page').check();
    await page.getByRole('button', { name: 'Delete 9 selected' }).click();
    await page.getByRole('button', { name: 'Confirm deleting 9 records' }).click();
    await poll(() => page.locator('.bulk-status').textContent()).toBe('9 of 9 records deleted.');
    expect(await page.getByRole('progressbar', { name: 'Delete progress' }).getAttribute('value')).toBe('9');
    await poll(status).toContain('0 records');
    expect(await count('title__startswith=Book 000&only_deleted=true&page_size=1')).toBe(9);

    await page.getByLabel('Show', { exact: true }).selectOption('deleted');
    await poll(status).toContain('9 records');
    await expectAccessible(page);
    await screenshot(page, 'console-deleted');
    await page.getByRole('button', { name: 'Restore record Book 0001' }).click();
    await poll(status).toContain('8 records');
    await page.getByRole('button', { name: 'Delete for good: record Book 0002' }).click();
    await page.getByRole('button', { name: 'Confirm deleting record Book 0002 for good' }).click();
    await poll(status).toContain('7 records');
    expect(await count('title=Book 0001&page_size=1')).toBe(1);
    expect(await count('title=Book 0002&include_deleted=true&page_size=1')).toBe(0);
  });

  it('builds a three-level tree of records, shows ancestors and descendants, and removes an edge', async () => {
    const ids: Record<string, string> = {};
    for (const title of ['Dune', 'Dune Messiah', 'Children of Dune']) {
      const created = await tenant.owner.post(booksPath(), { title, author: authors['Frank Herbert'] });
      expect(created.status, created.text).toBe(201);
      ids[title] = created.body.data.id;
    }
    async function linkTo(other: string) {
      await page.getByLabel('Find the other record by title').fill(other);
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await poll(() =>
        page.getByLabel('Other record', { exact: true }).locator('option').allTextContents(),
      ).toContain(`${other} (${ids[other]?.slice(0, 8)})`);
      await page.getByLabel('Other record', { exact: true }).selectOption(ids[other] ?? '');
      await page.getByRole('button', { name: 'Add relationship' }).click();
    }
    const listOf = (title: string) =>
      page.getByRole('list', { name: title }).locator('li a').allTextContents();

    await openRecord('books', ids['Dune Messiah'] ?? '', 'Dune Messiah');
    await poll(() => page.locator('main').textContent()).toContain('Frank Herbert');
    await linkTo('Dune');
    await poll(() => listOf('Ancestors (sequel_of)')).toEqual(['Dune']);
    // The same edge again: the API's refusal is shown.
    await page.getByRole('button', { name: 'Add relationship' }).click();
    await poll(() =>
      page.locator('section[aria-labelledby="relationships-title"] [role="alert"]').textContent(),
    ).toBe('"Dune Messiah" already has a "sequel_of" edge to "Dune".');

    await openRecord('books', ids['Children of Dune'] ?? '', 'Children of Dune');
    await linkTo('Dune Messiah');
    await poll(() => listOf('Ancestors (sequel_of)')).toEqual(['Dune Messiah', 'Dune']);
    // The tree from its root: Dune › Dune Messiah › Children of Dune (this record, not a link).
    await poll(() => page.locator('.record-tree > li > a').allTextContents()).toEqual(['Dune']);
    await poll(() => page.locator('.record-tree > li > ul > li > a').allTextContents()).toEqual([
      'Dune Messiah',
    ]);
    expect(await page.locator('.record-tree > li > ul > li > ul > li > strong').allTextContents()).toEqual([
      'Children of Dune',
    ]);
    await expectAccessible(page);
    await screenshot(page, 'console-tree');

    await openRecord('books', ids.Dune ?? '', 'Dune');
    await poll(() => listOf('Descendants (sequel_of_inverse)')).toEqual(['Dune Messiah', 'Children of Dune']);
    await poll(() => page.locator('.relatives-list li').first().textContent()).toContain('level 1');

    // Remove the edge Children of Dune → Dune Messiah: Dune keeps one descendant.
    await openRecord('books', ids['Children of Dune'] ?? '', 'Children of Dune');
    await page
      .getByRole('button', { name: 'Remove relationship: Children of Dune sequel_of Dune Messiah' })
      .click();
    await page
      .getByRole('button', { name: 'Confirm removing: Children of Dune sequel_of Dune Messiah' })
      .click();
    await poll(() => page.locator('main').textContent()).toContain('Relationship removed.');
    await poll(() => listOf('Ancestors (sequel_of)')).toEqual([]);
    const edges = await tenant.owner.get(`${tablesPath()}books/edges/?to_id=${ids.Dune}`);
    expect(edges.body.total).toBe(1);
    await openRecord('books', ids.Dune ?? '', 'Dune');
    await poll(() => listOf('Descendants (sequel_of_inverse)')).toEqual(['Dune Messiah']);
  });
  it('a member with view_site reads, filters and aggregates, with no schema, import, delete or edge button', async () => {
    const viewer = await createUser(platform, { password });
    await grantSite(tenant, viewer.user.id, ['view_site']);
    await context.clearCookies();
    await signIn(viewer.user.username);
    await openTable('books');
    await poll(status).toMatch(/\d+ records/);
    await page.getByLabel('Function').selectOption('count');
    await page.getByRole('button', { name: 'Aggregate', exact: true }).click();
    await poll(() => page.locator('table.aggregates caption').textContent()).toBe('All matching records');
    for (const name of [
      /^Import/,
      'Add field',
      'Add index',
      /^Drop /,
      'Add relationship type',
      /^Remove type/,
    ])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    expect(await page.getByLabel('File (CSV or JSON)').count()).toBe(0);
    expect(await page.getByLabel('Select every record of this page').count()).toBe(0);
    const dune = await tenant.owner.get(`${booksPath()}?title=Dune`);
    await openRecord('books', dune.body.data[0].id, 'Dune');
    await poll(() => page.getByRole('list', { name: 'Descendants (sequel_of_inverse)' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^(Add|Remove) relationship/ }).count()).toBe(0);
    await expectAccessible(page);
  });

  it('a member with change_site writes records and relationships, with no delete or schema button', async () => {
    const writer = await createUser(platform, { password });
    await grantSite(tenant, writer.user.id, ['view_site', 'change_site']);
    await context.clearCookies();
    await signIn(writer.user.username);
    await openTable('books');
    await poll(status).toMatch(/\d+ records/);
    // change_site: new, edit and import are the API's site:change routes.
    expect(await page.getByRole('button', { name: 'New record' }).count()).toBe(1);
    await poll(() => page.getByRole('button', { name: /^Edit record/ }).count()).toBeGreaterThan(0);
    expect(await page.getByLabel('File (CSV or JSON)').count()).toBe(1);
    // Not delete_site or manage_site: no delete, no selection for bulk delete, no schema change.
    expect(await page.getByRole('button', { name: /^Delete record/ }).count()).toBe(0);
    expect(await page.getByLabel('Select every record of this page').count()).toBe(0);
    for (const name of ['Add field', 'Add index', /^Drop /, 'Add relationship type'])
      expect(await page.getByRole('button', { name }).count()).toBe(0);
    const dune = await tenant.owner.get(`${booksPath()}?title=Dune`);
    await openRecord('books', dune.body.data[0].id, 'Dune');
    await poll(() => page.getByRole('button', { name: /^Add relationship/ }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^Remove relationship/ }).count()).toBe(0);
    await expectAccessible(page);
  });
});
