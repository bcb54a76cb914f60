import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { productName as consoleProductName } from '../../console/src/kit/product';
import { groups } from '../../functions/groups';
import { type ConsoleManifest, consoleHtml } from '../../functions/pages/console';
import { productName } from '../../functions/pages/html';
import { loadConfig } from '../../shared/config';
import { openApiDocument } from '../../shared/http/openapi';
import { explorerPage } from '../../shared/meta/explorer';

/** One product name wherever a person reads it: the package is `tenantbase`, the product Tenantbase. */
describe('the product name', () => {
  it('is Tenantbase in the README, the API document, the explorer, the outbox sender and the start-up line', () => {
    expect(JSON.parse(readFileSync('package.json', 'utf8')).name).toBe('tenantbase');
    expect(readFileSync('README.md', 'utf8').split('\n')[0]).toBe('# Tenantbase');
    expect((openApiDocument(Object.values(groups)).info as { title: string }).title).toBe('Tenantbase API');
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8')).info.title).toBe('Tenantbase API');
    expect(explorerPage('/ninja-openapi.json', '/ninja-docs/')).toContain('<title>Tenantbase API</title>');
    expect(loadConfig({}).mail.from).toBe('tenantbase@localhost');
    // The console: its header and its page, as the hosted pages (test/browser/console.test.ts sees them).
    expect(consoleProductName).toBe(productName);
    expect(consoleHtml({ js: 'a.js', css: 'a.css' } as ConsoleManifest)).toContain(
      `<title>Console · ${productName}</title>`,
    );
    const start = readFileSync('bin/local.ts', 'utf8');
    expect(start).toContain('Tenantbase listening on');
    expect(start).toContain('Tenantbase could not start');
  });
});
