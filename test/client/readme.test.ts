import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The examples of client/README.md, run as written against the local server: every ```ts block, in order, as one
 * module, after the project README's "Using it locally" steps (the site `shop`, the app `storefront`). Only the
 * package name (imports point at client/src) and the base URL (the test server's) are replaced. Then the
 * project README's five lines, which list filtered records of the same table.
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
  rmSync(directory, { recursive: true, force: true });
  await platform.stop();
});

/** The ```ts blocks of a Markdown file, with the client's import and the base URL pointed at this test. */
function tsBlocks(file: string): string {
  const blocks = [...readFileSync(file, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (match) => match[1] as string,
  );
  expect(blocks.length).toBeGreaterThan(0);
  const source = resolve('client/src');
  return blocks
    .join('\n')
    .replaceAll("'@tenantbase/client/refine'", JSON.stringify(join(source, 'refine.ts')))
    .replaceAll("'@tenantbase/client'", JSON.stringify(join(source, 'index.ts')))
    .replaceAll("'./client/src/index'", JSON.stringify(join(source, 'index.ts')))
    .replaceAll("'http://localhost:3000'", JSON.stringify(platform.baseUrl));
}

/** Runs code as a module with console.log captured; the lines it printed. */
async function run(name: string, code: string): Promise<string[]> {
  vi.stubEnv('ADMIN_PASSWORD', adminPassword);
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
  });
  try {
    const file = join(directory, `${name}.ts`);
    writeFileSync(file, `${code}\nexport {};\n`);
    await import(file);
  } finally {
    spy.mockRestore();
  }
  return lines;
}

describe('client README examples', () => {
  it('run as written: sign in, create a table, write records, query, traverse', async () => {
    const lines = await run('client-readme', tsBlocks('client/README.md'));
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

  it("the project README's five lines list filtered records", async () => {
    const lines = await run('readme', tsBlocks('README.md'));
    expect(lines).toEqual(['1 ["Dune"]']);
  });
});
