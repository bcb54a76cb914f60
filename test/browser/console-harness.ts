import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildConsole } from '../../console/build';
import { serveConsoleFrom } from '../../functions/pages/console';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { TestBrowser } from './browser';

/** The password of the people the console's browser tests create. */
export const password = 'Velvet-Harbor-Quill-42';

/**
 * What the console's browser files (console, console-data, console-access) share: the console built from its
 * sources into a directory of the file's own (files running at the same time never read a build another one is
 * rewriting), the platform started in the file's process, the file's TestBrowser, a page a test in a context of its
 * own where any policy report or script error fails the test, and signing in through the hosted page.
 *
 * It registers no hook: each file calls `start`/`stop` from its own `beforeAll`/`afterAll` and `open`/`close` from
 * its own `beforeEach`, so the hooks, their order and their timeouts stay the file's. One harness per file (nothing
 * is kept at module level: files share their worker's process), and every context opens and closes through its
 * TestBrowser.
 */
export class ConsoleHarness {
  /** The file's browser: contexts a test opens besides its page go through it too (`newContext`/`closeContext`). */
  readonly browser = new TestBrowser();
  #platform: TestPlatform | undefined;
  #directory: string | undefined;
  #context: BrowserContext | undefined;
  #page: Page | undefined;
  #violations: string[] = [];

  /**
   * `name` prefixes the build's temporary directory; `pollTimeout` bounds the file's `expect.poll` (a bound a loaded
   * machine meets: never a verdict on speed).
   */
  constructor(
    private readonly name: string,
    private readonly pollTimeout: number,
  ) {}

  /** `expect.poll` with the file's bound. */
  readonly poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: this.pollTimeout });

  get platform(): TestPlatform {
    if (!this.#platform) throw new Error('The console harness has not started its platform');
    return this.#platform;
  }

  get page(): Page {
    if (!this.#page) throw new Error('The console harness has no page open');
    return this.#page;
  }

  readonly url = (path: string): string => `${this.platform.baseUrl}${path}`;

  /** Builds and serves the console, then starts the platform with `env` (for the file's `beforeAll`). */
  async start(env?: Record<string, string>): Promise<TestPlatform> {
    this.#directory = mkdtempSync(join(tmpdir(), `${this.name}-`));
    buildConsole(this.#directory);
    serveConsoleFrom(this.#directory);
    this.#platform = await startTestPlatform(env);
    return this.#platform;
  }

  /** Removes the build, closes the browser and stops the platform (for the file's `afterAll`). */
  async stop(): Promise<void> {
    if (this.#directory) rmSync(this.#directory, { recursive: true, force: true });
    await this.browser.close();
    await this.#platform?.stop();
  }

  /**
   * A new context (1280×800) and page for a test, which records every policy report and script error of the page
   * (for the file's `beforeEach`; `close` checks them).
   */
  async open(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 800 } });
    this.#context = context;
    const page = await context.newPage();
    this.#page = page;
    const violations: string[] = [];
    this.#violations = violations;
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => violations.push(`page error: ${error.message}`));
    return { context, page };
  }

  /** Fails the test on any policy report or script error of its page, then closes its context. */
  readonly close = async (): Promise<void> => {
    expect(this.#violations).toEqual([]);
    if (this.#context) await this.browser.closeContext(this.#context);
  };

  /** Opens the console signed out: it sends the browser to the hosted sign-in page, which comes back. */
  readonly signIn = async (username: string, secret = password): Promise<void> => {
    const page = this.page;
    await page.goto(this.url('/console/'));
    await page.waitForURL(/\/sign-in\?return_to=/);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/console\/$/);
    await this.poll(() => page.locator('.who').textContent()).toContain(username);
  };
}
