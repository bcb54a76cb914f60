import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** The limits of docs/security.md ("Limits and how they are tested") that no other test file holds. */

let platform: TestPlatform;
let tenant: Tenant;
let path: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  await createTable(tenant.owner, tenant.app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
  path = dataPath(tenant.app.slug, 'notes');
});
afterAll(async () => {
  await platform.stop();
});

describe('request size', () => {
  it('refuses a body over 6 MB with 413 before the handler, and keeps serving', async () => {
    const text = 'x'.repeat(6 * 1024 * 1024);
    const response = await tenant.owner.post(path, { text });
    expect(response.status).toBe(413);
    expect((await tenant.owner.get(path)).status).toBe(200);
  });
});

describe('bulk sizes', () => {
  it('creates 1,000 records in one request and refuses 1,001, naming the limit', async () => {
    const records = (count: number) => Array.from({ length: count }, (_, index) => ({ text: `n${index}` }));
    const refused = await tenant.owner.post(path, records(1001));
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('at most 1000 records');
    const created = await tenant.owner.post(path, records(1000));
    expect(created.status).toBe(201);
    expect(created.body.data).toHaveLength(1000);
  });
});
