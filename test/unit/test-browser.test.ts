import type { Browser, BrowserContext } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { TestBrowser } from '../browser/browser';

/**
 * The browser tests' TestBrowser outlives a stuck Chromium (a context that never opens or never closes): the stuck
 * browser is retired and the next context opens in a new one. Stand-ins for Chromium, whose stuck steps never settle,
 * so no verdict depends on the deadline's length.
 */

const never = <T>() => new Promise<T>(() => undefined);

interface FakeBrowser {
  browser: Browser;
  closed: () => boolean;
}

function fakeBrowser(behaviour: { opens: boolean; contextCloses: boolean }): FakeBrowser {
  let closed = false;
  const context = {
    pages: () => [],
    close: () => (behaviour.contextCloses ? Promise.resolve() : never<void>()),
  } as unknown as BrowserContext;
  const browser = {
    newContext: () => (behaviour.opens ? Promise.resolve(context) : never<BrowserContext>()),
    close: async () => {
      closed = true;
    },
  } as unknown as Browser;
  return { browser, closed: () => closed };
}

function launcher(...browsers: FakeBrowser[]) {
  const launch = vi.fn(async () => {
    const next = browsers.shift();
    if (!next) throw new Error('no more browsers');
    return next.browser;
  });
  return launch;
}

describe('TestBrowser', () => {
  it('opens every context in one browser while Chromium answers', async () => {
    const first = fakeBrowser({ opens: true, contextCloses: true });
    const launch = launcher(first);
    const browser = new TestBrowser(launch, 20);
    for (let n = 0; n < 3; n++) await browser.closeContext(await browser.newContext());
    expect(launch).toHaveBeenCalledTimes(1);
    expect(browser.retired).toBe(0);
    await browser.close();
    expect(first.closed()).toBe(true);
  });

  it('retires a browser whose context never closes: the next context opens in a new one', async () => {
    const stuck = fakeBrowser({ opens: true, contextCloses: false });
    const fresh = fakeBrowser({ opens: true, contextCloses: true });
    const launch = launcher(stuck, fresh);
    const browser = new TestBrowser(launch, 20);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await browser.closeContext(await browser.newContext());
    expect(browser.retired).toBe(1);
    expect(stuck.closed()).toBe(true);
    expect(String(stderr.mock.calls[0]?.[0])).toContain('Chromium stuck closing a context');
    await browser.closeContext(await browser.newContext());
    expect(launch).toHaveBeenCalledTimes(2);
    expect(browser.retired).toBe(1);
  });

  it('opens the context in a new browser when the first never answers, and fails after two in a row', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const recovered = new TestBrowser(
      launcher(
        fakeBrowser({ opens: false, contextCloses: true }),
        fakeBrowser({ opens: true, contextCloses: true }),
      ),
      20,
    );
    await expect(recovered.newContext()).resolves.toBeDefined();
    expect(recovered.retired).toBe(1);

    const hopeless = new TestBrowser(
      launcher(
        fakeBrowser({ opens: false, contextCloses: true }),
        fakeBrowser({ opens: false, contextCloses: true }),
      ),
      20,
    );
    await expect(hopeless.newContext()).rejects.toThrow('two browsers in a row');
  });

  it('passes a failure to open on to the test', async () => {
    const failing = {
      newContext: () => Promise.reject(new Error('Target closed')),
      close: async () => undefined,
    } as unknown as Browser;
    const browser = new TestBrowser(async () => failing, 20);
    await expect(browser.newContext()).rejects.toThrow('Target closed');
    expect(browser.retired).toBe(0);
  });
});
