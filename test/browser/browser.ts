import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import axe from 'axe-core';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';

/**
 * Debian's Chromium, driven by playwright-core (no browser download). CHROMIUM_PATH names another executable.
 * A missing browser fails the tests with the way to install it: they are never skipped, in CI or here.
 */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path))
    throw new Error(
      `Chromium is not installed at ${path}: run \`apt-get install chromium\` (Debian), or set CHROMIUM_PATH`,
    );
  return path;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** What a step came to within a deadline: its value, or not settled (the step is left to itself). */
type Settled<T> = { ok: true; value: T } | { ok: false };

function within<T>(promise: Promise<T>, ms: number): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Settled<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false }), ms);
  });
  // A failure of the step is its caller's; one after the deadline is nobody's (the race has settled).
  return Promise.race([promise.then((value) => ({ ok: true as const, value })), deadline]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * How long opening or closing a browser context may take before the browser is deemed stuck: both take well under a
 * second on a loaded machine, so the deadline never decides a verdict about a page.
 */
export const stuckAfterMs = 30_000;

/**
 * The browser of a test file, which outlives a stuck Chromium. Chromium can acknowledge the close of a page whose
 * navigation is committing and never finish it (playwright issues 42366 and 41900), and a context's close or creation
 * then waits forever: a test that ended while its page redirected hung its file's teardown for the whole hook
 * timeout, in CI, about once in a few hundred tests under load. So each page is first taken to `about:blank` (which
 * replaces a navigation in flight) before its context closes, and a context that neither opens nor closes within
 * `stuckAfterMs` retires that browser: the next context opens in a new one. Opening fails only when two browsers in a
 * row are stuck.
 */
export class TestBrowser {
  #current: Promise<Browser> | undefined;
  /** How many browsers were retired as stuck (a line on stderr says so each time). */
  retired = 0;

  constructor(
    private readonly launch: () => Promise<Browser> = launchBrowser,
    private readonly stuckMs = stuckAfterMs,
  ) {}

  async newContext(options?: BrowserContextOptions): Promise<BrowserContext> {
    for (let attempt = 1; ; attempt++) {
      this.#current ??= this.launch();
      const browser = await this.#current;
      const opened = await within(browser.newContext(options), this.stuckMs);
      if (opened.ok) return opened.value;
      this.#retire('opening a context');
      if (attempt === 2)
        throw new Error(`Chromium did not open a context within ${this.stuckMs} ms in two browsers in a row`);
    }
  }

  async closeContext(context: BrowserContext): Promise<void> {
    for (const page of context.pages()) {
      // A navigation the page starts meanwhile interrupts the first attempt: the second one settles it.
      await page
        .goto('about:blank')
        .catch(() => page.goto('about:blank'))
        .catch(() => undefined);
    }
    const closed = await within(context.close(), this.stuckMs);
    if (!closed.ok) this.#retire('closing a context');
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    if (current) await within((await current).close(), this.stuckMs);
  }

  /** Leaves the stuck browser to close on its own (its process ends with the test worker at the latest). */
  #retire(step: string): void {
    const stuck = this.#current;
    this.#current = undefined;
    this.retired++;
    process.stderr.write(
      `Chromium stuck ${step} for ${this.stuckMs} ms: the next context opens in a new browser\n`,
    );
    void stuck?.then((browser) => browser.close()).catch(() => undefined);
  }
}

/** A free port on 127.0.0.1 (the identity provider needs the platform's, and the platform the provider's). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** Runs axe-core in the page and fails on any serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  // The pages' policy forbids inline scripts: axe goes in through the debugging protocol, which it does not cover.
  await page.evaluate(axe.source);
  const results = await page.evaluate(async () => {
    const page = globalThis as any;
    const run = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return run.violations.map(
      (violation: { id: string; impact: string; help: string; nodes: unknown[] }) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        nodes: violation.nodes.length,
      }),
    );
  });
  const serious = results.filter(
    (violation: { impact: string }) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  expect(serious).toEqual([]);
}

/** With SCREENSHOTS=1, saves the page at desktop and phone width into docs/screenshots/<name>-<width>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  const dir = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(viewports)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(dir, `${name}-${label}.png`), fullPage: false });
  }
  if (original) await page.setViewportSize(original);
}
