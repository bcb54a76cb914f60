import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/accounts/keys';
import { siteSchemaName } from '../../shared/data/schema/names';
import type { Logger } from '../../shared/log';
import { migrate } from '../../shared/sql/migrations';
import { createTable, dataPath, insert, tablePath, tablesPath } from '../support/data';
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

/** DynamoDB as a backup older than the app left it: the app's items gone, its id counter back before it. */
async function forgetApp(tenant: Tenant): Promise<void> {
  const { table, doc } = store();
  await doc.send(new DeleteCommand({ TableName: table, Key: keys.app(tenant.site.slug, tenant.app.slug) }));
  await doc.send(new DeleteCommand({ TableName: table, Key: keys.appId(tenant.app.id) }));
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: { PK: 'COUNTER', SK: 'app' },
      UpdateExpression: 'SET #value = :value',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':value': tenant.app.id - 1 },
    }),
  );
}

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

describe('DynamoDB restored older than PostgreSQL', () => {
  it('an app that gets an old app id again never reads the old rows: every data route refuses with 409', async () => {
    const first = await tenantWithRows();
    await forgetApp(first);
    const made = await first.owner.post('/api/apps/', { name: unique('Again') });
    expect(made.status).toBe(201);
    expect(made.body.id).toBe(first.app.id);
    const app = made.body.slug as string;
    errors.length = 0;

    expectStoresDisagree(await first.owner.get(tablesPath(app)));
    expectStoresDisagree(await first.owner.get(tablePath(app, 'notes')));
    expectStoresDisagree(await first.owner.get(dataPath(app, 'notes')));
    expectStoresDisagree(await first.owner.get(`${dataPath(app, 'notes')}1/`));
    expectStoresDisagree(await first.owner.post(dataPath(app, 'notes'), { id: 2, title: 'x' }));
    expectStoresDisagree(await first.owner.post(tablesPath(app), { name: 'notes', schema }));
    expectStoresDisagree(await first.owner.post(tablesPath(app), { name: 'other', schema }));
    expect(errors.some((line) => line.includes('stores disagree'))).toBe(true);
  });

  it('tables made before identities were recorded: migration 102 adds the columns, the first request claims them', async () => {
    const first = await tenantWithRows();
    const sql = platform.deps.sql();
    const pgSchema = siteSchemaName(first.site.slug);
    // The catalog and registry as they were before migration 102.
    await sql`ALTER TABLE ${sql(pgSchema)}.catalog DROP COLUMN site_identity, DROP COLUMN app_identity`;
    await sql`UPDATE platform.data_site_schemas SET layout_version = 1, site_identity = NULL
      WHERE site = ${first.site.slug}`;
    await sql`DELETE FROM platform.schema_migrations WHERE version = 102`;
    expect(await migrate(sql)).toEqual([102]);
    const [before] = await sql`SELECT app_identity FROM ${sql(pgSchema)}.catalog WHERE name = 'notes'`;
    expect(before?.app_identity).toBeNull();

    // The first request of the app that reads the catalog claims its rows (a new container's first read does: this
    // one still knows the table's definition, so the table's own route stands in for it).
    const read = await first.owner.get(tablePath(first.app.slug, 'notes'));
    expect(read.status).toBe(200);
    expect((await first.owner.get(dataPath(first.app.slug, 'notes'))).body.data).toHaveLength(1);
    const [after] = await sql`SELECT app_identity FROM ${sql(pgSchema)}.catalog WHERE name = 'notes'`;
    expect(after?.app_identity).toBe((first.app as { created_at?: string }).created_at);
    // The site's registry row is claimed by its next schema change.
    await createTable(first.owner, first.app.slug, 'more', schema);
    const [site] =
      await sql`SELECT site_identity FROM platform.data_site_schemas WHERE site = ${first.site.slug}`;
    expect(site?.site_identity).toBe((first.site as { created_at?: string }).created_at);

    // From then on an app that gets the old id again is refused.
    await forgetApp(first);
    const made = await first.owner.post('/api/apps/', { name: unique('Again') });
    expect(made.body.id).toBe(first.app.id);
    expectStoresDisagree(await first.owner.get(dataPath(made.body.slug, 'notes')));
  });
});
