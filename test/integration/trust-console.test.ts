import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../console/build';
import { serveConsoleFrom } from '../../functions/pages/console';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: the console (docs/console.md). The console holds nothing of any tenant:
 * its page and assets are the same bytes for every site, signed-in person and host, so nothing a tenant controls
 * can change what another tenant's people load; its asset route reads only the build's two hashed files.
 */

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;
let built: { js: string; css: string };
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'console-'));
  built = buildConsole(directory);
  serveConsoleFrom(directory);
  platform = await startTestPlatform({}, {}, { dataPlane: false });
  a = await createTenant(platform);
  b = await createTenant(platform);
});
afterAll(async () => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  await platform?.stop();
});

describe('console: cross-tenant trust suite', () => {
  it('serves the same page to every site and person, under the strict policy', async () => {
    const anonymous = await platform.api.get('/console/');
    const ownerA = await a.owner.get('/console/');
    const ownerB = await b.owner.forSite(a.site.slug).get('/console/');
    const hostB = await platform.api.get('/console/', { headers: { 'x-site': b.site.slug } });
    for (const answer of [anonymous, ownerA, ownerB, hostB]) {
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(anonymous.text);
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    for (const tenant of [a, b]) {
      expect(anonymous.text).not.toContain(tenant.site.slug);
      expect(anonymous.text).not.toContain(tenant.organization.slug);
    }
  });

  it('reads only the two built files: other names, paths and the manifest are 404s', async () => {
    const script = await b.owner.get(`/console/assets/${built.js}`);
    expect(script.status).toBe(200);
    expect(script.text).toBe(readFileSync(join(directory, built.js), 'utf8'));
    for (const name of [
      'manifest.json',
      '..%2F..%2Fpackage.json',
      '..%2Fbuild.ts',
      '%2E%2E%2Fsrc%2Fmain.tsx',
      'console-AAAAAAAA.js',
      `${built.js}.map`,
    ]) {
      const refused = await a.owner.get(`/console/assets/${name}`);
      expect(refused.status, name).toBe(404);
      expect(refused.text).not.toContain('"dependencies"');
    }
  });
});
