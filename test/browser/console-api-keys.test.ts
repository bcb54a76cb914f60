import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, it, vi } from 'vitest';
import type { TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';
import { ConsoleHarness } from './console-harness';

/** The console's API keys screen (console/src/screens/api-keys.tsx) in a real browser against the platform. */

vi.setConfig({ testTimeout: 120_000 });
const ui = new ConsoleHarness('console-api-keys', 20_000);
const { poll, url, signIn } = ui;
let platform: TestPlatform;
let tenant: Tenant;
let page: Page;

beforeAll(async () => {
  platform = await ui.start({});
  tenant = await createTenant(platform);
}, 240_000);
afterAll(async () => {
  await ui.stop();
});
beforeEach(async () => {
  ({ page } = await ui.open());
  return ui.close;
});

describe('console: API keys', () => {
  it("the site's owner creates a key, sees it once, then only its prefix, and revokes it", async () => {
    await signIn(tenant.ownerUser.username, 'Velvet-Harbor-Quill-42');
    await page.goto(url(`/console/#/o/${tenant.organization.slug}/s/${tenant.site.slug}/api-keys`));
    await poll(() => page.locator('h1').textContent()).toBe('API keys');
    await page.getByLabel('Key name').fill('Orders backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    await poll(() => page.locator('main code').first().textContent()).toMatch(/^tbk_[A-Za-z0-9_-]{54}$/);
    const key = (await page.locator('main code').first().textContent()) ?? '';
    await poll(() => page.getByRole('row', { name: /Orders backend/ }).textContent()).toContain(
      key.slice(0, 12),
    );
    await page.reload();
    await poll(() => page.getByRole('row', { name: /Orders backend/ }).textContent()).toContain('view_site');
    await poll(() => page.locator('main').textContent()).not.toContain(key);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page
      .getByRole('button', { name: /Revoke|Confirm|Yes/ })
      .last()
      .click();
    await poll(() => page.locator('main').textContent()).toContain('No key you may see.');
    await poll(
      async () => (await platform.api.withToken(key).forSite(tenant.site.slug).get('/api/apps/')).status,
    ).toBe(401);
  });
});
