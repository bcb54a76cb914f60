import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/accounts/keys';
import { siteSchemaName } from '../../shared/data/schema/names';
import type { Logger } from '../../shared/log';
import { createTable, dataPath, insert, tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant, unique } from '../support/tenant';

/** Error lines of the platform: an operator must be told when the stores disagree. */
const errors: string[] = [];
const log: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message, fields) => errors.push(JSON.stringify({ message, fields })),
  child: () => log,
};

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, { log });
});
afterAll(async () => {
  await platform.stop();
});

const store = () => platform.deps.store;

const schema = {
  fields: [
    { name: 'id', type: 'integer', constraints: { required: true } },
    { name: 'title', type: 'string' },
  ],
  primaryKey: ['id'],
};

async function tenantWithRows(): Promise<Tenant> {
  const tenant = await createTenant(platform);
  await createTable(tenant.owner, tenant.app.slug, 'notes', schema);
  await insert(tenant.owner, tenant.app.slug, 'notes', { id: 1, title: 'private to the first app' });
  // Read once, so this container has the table's definition cached too.
  const read = await tenant.owner.get(dataPath(tenant.app.slug, 'notes'));
  expect(read.body.data).toHaveLength(1);
  return tenant;
}

function expectStoresDisagree(response: { status: number; body: any; text: string }): void {
  expect(response.status, response.text).toBe(409);
  expect(response.body.error).toBe('Stores disagree');
  expect(response.body.detail).toContain('restored');
  expect(response.text).not.toContain('private to the first app');
}

describe('cross-tenant trust suite: stores restored to different moments', () => {
  it("a site that another organization made with a slug DynamoDB forgot never creates tables in the old site's schema", async () => {
    errors.length = 0;
    const first = await tenantWithRows();
    const second = await createTenant(platform);
    // The first site's profile is gone from DynamoDB: its slug is free again, and another organization takes it.
    await store().doc.send(new DeleteCommand({ TableName: store().table, Key: keys.site(first.site.slug) }));
    const site = await second.owner.post(`/api/cloud/organizations/${second.organization.slug}/sites/`, {
      name: unique('Site'),
      slug: first.site.slug,
    });
    expect(site.status).toBe(201);
    const owner = second.owner.forSite(first.site.slug);
    const app = await owner.post('/api/apps/', { name: unique('App') });
    expect(app.status).toBe(201);
    // Its new app id names no old table: nothing to see, and nothing may be created in a schema it does not own.
    const listed = await owner.get(tablesPath(app.body.slug));
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    expectStoresDisagree(await owner.post(tablesPath(app.body.slug), { name: 'notes', schema }));
    expect(errors.some((line) => line.includes('stores disagree'))).toBe(true);
    // The old site's catalog holds its one table still, and nothing of the new site's.
    const sql = platform.deps.sql();
    const rows = await sql`SELECT app_id FROM ${sql(siteSchemaName(first.site.slug))}.catalog`;
    expect(rows.map((row) => row.app_id)).toEqual([first.app.id]);
  });
});
