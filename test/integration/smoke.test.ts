import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSmoke, type SmokeCheck } from '../../bin/smoke';
import { adminPassword, startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The deployment smoke test (`npm run smoke -- <base-url>`, bin/smoke.ts) against the local HTTP server on
 * 127.0.0.1 with an ephemeral port: every check it makes of a deployed stack passes here, so it stays working, and
 * it leaves nothing behind in either store, which the test reads directly.
 */

/** Every control-plane item, as text, that names something the smoke test made (its names start `smoke-`). */
async function smokeItems(platform: TestPlatform): Promise<string[]> {
  const { store } = platform.deps;
  const found: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new ScanCommand({ TableName: store.table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) {
      const text = JSON.stringify(item);
      if (text.includes('smoke-') || text.includes('smoke_')) found.push(text);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

/** The data plane's schemas and site registry rows: a site's schema that outlived its site would be here. */
async function sqlFootprint(platform: TestPlatform): Promise<{ schemas: string[]; sites: string[] }> {
  const sql = platform.deps.sql();
  const schemas = await sql<{ name: string }[]>`SELECT nspname AS name FROM pg_namespace
    WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1`;
  const sites = await sql<{ site: string }[]>`SELECT site FROM platform.data_site_schemas ORDER BY 1`;
  return { schemas: schemas.map((row) => row.name), sites: sites.map((row) => row.site) };
}

async function smoke(platform: TestPlatform, lines: string[] = []): Promise<SmokeCheck[]> {
  return runSmoke({
    baseUrl: platform.baseUrl,
    username: 'admin',
    password: adminPassword,
    report: (line) => lines.push(line),
    pollSeconds: 0.2,
  });
}

describe('npm run smoke', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('passes every check against the local server, and fails on a wrong password', async () => {
    expect(new URL(platform.baseUrl).hostname).toBe('127.0.0.1');
    const before = await sqlFootprint(platform);
    const lines: string[] = [];
    const checks = await smoke(platform, lines);
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    expect(checks.map((check) => check.name)).toEqual(
      expect.arrayContaining([
        'GET /health answers 200 with status ok',
        'data: table, record, list, delete',
        'secrets: type, secret, read (removed with the site)',
        'events: PRE_USER_CREATE and POST_USER_CREATE are listed',
        'accounts: create a user (the user-creation events), who signs in',
        'invitations: invite an address (the invitation e-mail), list it',
        'pages: the sign-in page, the account redirect, an unknown invitation link',
        'delete the organization (its site, app, schema and invitation)',
        'nothing the smoke test made is left',
        'GET /no/such/path answers 404',
      ]),
    );
    // The invitation's placeholder account is deleted as well as the user it created.
    expect(checks.filter((check) => check.name.startsWith('delete the user '))).toHaveLength(2);
    expect(checks.filter((check) => check.name.includes(' and ')).length).toBeGreaterThanOrEqual(8);
    expect(lines.at(-1)).toBe(`${checks.length} of ${checks.length} checks passed`);
    // The invitation e-mail went out (the local outbox), to SES's mailbox simulator.
    const outbox = join(platform.deps.config.dataDir, 'outbox');
    const mails = readdirSync(outbox).map((file) => readFileSync(join(outbox, file), 'utf8'));
    expect(
      mails.filter((eml) => /\r\nTo: success\+smoke-[a-z0-9]+@simulator\.amazonses\.com\r\n/.test(eml)),
    ).toHaveLength(1);

    // Nothing it made is left in either store.
    expect(await smokeItems(platform)).toEqual([]);
    expect(await sqlFootprint(platform)).toEqual(before);

    const refused = await runSmoke({
      baseUrl: platform.baseUrl,
      username: 'admin',
      password: 'not-the-password',
      report: () => {},
    });
    expect(refused.find((check) => check.name.startsWith('sign-in'))?.ok).toBe(false);
  });
});

describe('npm run smoke, when a deletion answers 202', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    // One cleanup step per request: every deletion is handed to the background sweep (the sweeper's stand-in).
    platform = await startTestPlatform({ DELETION_STEPS_PER_REQUEST: '1' });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('waits for the sweep to finish the cleanup, and leaves nothing behind', async () => {
    const before = await sqlFootprint(platform);
    const lines: string[] = [];
    const checks = await smoke(platform, lines);
    expect(checks.filter((check) => !check.ok)).toEqual([]);
    expect(lines.at(-1)).toBe(`${checks.length} of ${checks.length} checks passed`);
    // The users' deletions answered 202 too: their cleanup is the background sweep's (their tombstones name them).
    await expect.poll(() => smokeItems(platform), { interval: 100 }).toEqual([]);
    expect(await sqlFootprint(platform)).toEqual(before);
  });
});
