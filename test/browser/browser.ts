import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import axe from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';
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
