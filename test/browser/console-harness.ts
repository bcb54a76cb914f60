import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { buildConsole } from '../../console/build';
import { serveConsoleFrom } from '../../pages/console';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { launchBrowser } from './browser';

/** The password of the people the console's tests create. */
export const password = 'Velvet-Harbor-Quill-42';

/** `expect.poll` with a bound that a loaded machine meets (tables are DDL, imports many writes): never a verdict on speed. */
export const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000 });

export interface ConsoleHarness {
  readonly browser: Browser;
  readonly platform: TestPlatform;
  /** A fresh browser context and page per test (1280×800); any policy report or script error fails the test. */
  readonly context: BrowserContext;
  readonly page: Page;
  url(path: string): string;
  /** Opens the console signed out: it sends the browser to the hosted sign-in page, which comes back. */
  signIn(username: string, secret?: string): Promise<void>;
}

/**
 * One platform, one browser and one console build (from the sources, into a directory of the file's own, so files
 * running at the same time never read a build another one is rewriting) for a test file of the console; `env`
 * gives the platform's settings, read when the file starts.
 */
export function consoleHarness(
  name: string,
  env: () => Promise<Record<string, string>> | Record<string, string> = () => ({}),
): ConsoleHarness {
  let browser: Browser | undefined;
  let platform: TestPlatform | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  let directory: string | undefined;
  const present = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`The console harness has no ${what} yet`);
    return value;
  };
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), `${name}-`));
    buildConsole(directory);
    serveConsoleFrom(directory);
    browser = await launchBrowser();
    platform = await startTestPlatform(await env());
  }, 240_000);
  afterAll(async () => {
    if (directory) rmSync(directory, { recursive: true, force: true });
    await browser?.close();
    await platform?.stop();
  });
  beforeEach(async () => {
    context = await present(browser, 'browser').newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
    return async () => {
      expect(violations).toEqual([]);
      await context?.close();
    };
  });
  const harness: ConsoleHarness = {
    get browser() {
      return present(browser, 'browser');
    },
    get platform() {
      return present(platform, 'platform');
    },
    get context() {
      return present(context, 'browser context');
    },
    get page() {
      return present(page, 'page');
    },
    url: (path) => `${harness.platform.baseUrl}${path}`,
    async signIn(username, secret = password) {
      const page = harness.page;
      await page.goto(harness.url('/console/'));
      await page.waitForURL(/\/sign-in\?return_to=/);
      await page.getByLabel('Username or e-mail').fill(username);
      await page.getByLabel('Password', { exact: true }).fill(secret);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(/\/console\/$/);
      await poll(() => page.locator('.who').textContent()).toContain(username);
    },
  };
  return harness;
}
