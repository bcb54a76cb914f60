import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The examples of client/README.md, run as written against the local server: every ```ts block, in order, as one
 * module, after the project README's "Using it locally" steps (the site `shop`, the app `storefront`). Only the
 * package name (imports point at client/src) and the base URL (the test server's) are replaced.
 */

let platform: TestPlatform;
let directory: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  const admin = platform.adminApi;
  const organization = await admin.post('/api/cloud/organizations/', { name: 'Acme' });
  expect(organization.status).toBe(201);
  const site = await admin.post(`/api/cloud/organizations/${organization.body.slug}/sites/`, {
    name: 'Shop',
  });
  expect(site.body.slug).toBe('shop');
  const app = await admin.forSite('shop').post('/api/apps/', { name: 'Storefront' });
  expect(app.body.slug).toBe('storefront');
  directory = mkdtempSync(join(tmpdir(), 'client-readme-'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(directory, { recursive: true, force: true });
  await platform.stop();
});

function readmeModule(): string {
  const readme = readFileSync('client/README.md', 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
  expect(blocks.length).toBeGreaterThanOrEqual(6);
  const source = resolve('client/src');
  return blocks
    .join('\n')
    .replaceAll("'@tenantbase/client/refine'", JSON.stringify(join(source, 'refine.ts')))
    .replaceAll("'@tenantbase/client'", JSON.stringify(join(source, 'index.ts')))
    .replaceAll("'http://localhost:3000'", JSON.stringify(platform.baseUrl));
}

describe('client README examples', () => {
  it('run as written: sign in, create a table, write records, query, traverse', async () => {
    vi.stubEnv('ADMIN_PASSWORD', adminPassword);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
    });
    const file = join(directory, 'readme-examples.ts');
    writeFileSync(file, `${readmeModule()}\nexport {};\n`);
    await import(file);
    expect(lines[0]).toBe('admin');
    expect(lines).toContain('2 ["Hyperion","Dune"]');
    expect(lines).toEqual(expect.arrayContaining(['Dune', 'Dune Messiah']));
    expect(lines).toContain('[["<b>Dune</b>",true],["<b>Dune</b> Messiah",true]]');
    expect(lines.some((line) => line.startsWith('{"aggregates":{"count":3'))).toBe(true);
    expect(lines.some((line) => line.startsWith('400 {"title":'))).toBe(true);
    expect(lines.some((line) => line.includes('"title":"Dune Messiah"') && line.includes('"_depth":1'))).toBe(
      true,
    );
    expect(lines).toContain('2 1');
  });
});
