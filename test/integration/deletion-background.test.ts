import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marginMs, sweeper } from '../../functions/deletions/handler';
import { siteSchemaName } from '../../shared/data/schema/names';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { sweepDeletions } from '../../shared/lifecycle/sweep';
import { createTable, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, grantSite } from '../support/tenant';

/**
 * A deletion that answered 202 is finished with no further request (docs/lifecycle.md, "Finished in the
 * background"): the local server's background sweep takes it over. DELETION_STEPS_PER_REQUEST=1 makes every
 * deletion here answer 202 with most of its cleanup owed; nothing is sent afterwards but reads of the stores, polled
 * a bounded number of times (no fixed sleep decides anything).
 */

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ DELETION_STEPS_PER_REQUEST: '1' });
});
afterAll(async () => {
  await platform.stop();
});

async function tombstone(key: { PK: string; SK: string }) {
  const { store } = platform.deps;
  return (await store.doc.send(new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true })))
    .Item;
}

/** Reads the tombstone until it is gone: at most `polls` reads, one every 20 ms (the event loop turns between). */
async function awaitGone(key: { PK: string; SK: string }, polls = 1500): Promise<number> {
  for (let poll = 1; poll <= polls; poll++) {
    if (!(await tombstone(key))) return poll;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`the deletion ${key.SK} is still pending after ${polls} reads`);
}

async function partition(pk: string): Promise<unknown[]> {
  const { store } = platform.deps;
  const result = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

describe('deletions finished in the background', () => {
  it('an app deletion answered 202 finishes with no further request: its tables and rows are gone', async () => {
    const tenant = await createTenant(platform);
    const { app } = tenant;
    for (const table of ['notes', 'tags', 'links']) {
      await createTable(tenant.owner, app.slug, table, { fields: [{ name: 'text', type: 'string' }] });
      await insert(tenant.owner, app.slug, table, { text: `a row of ${table}` });
    }
    const deleted = await tenant.owner.delete(`/api/apps/${app.slug}/`);
    expect(deleted.status).toBe(202);
    await awaitGone(deletionKeys.app(tenant.site.slug, app.id));

    const sql = platform.deps.sql();
    const schema = siteSchemaName(tenant.site.slug);
    expect(await sql`SELECT 1 FROM ${sql(schema)}.catalog WHERE app_id = ${app.id}`).toHaveLength(0);
    expect(
      await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema}
        AND table_name LIKE ${`a${app.id}\\_%`}`,
    ).toHaveLength(0);
  });

  it('an organization deletion answered 202 finishes with no further request: its schema and items are gone', async () => {
    const tenant = await createTenant(platform);
    const org = tenant.organization.slug;
    const site = tenant.site;
    await createTable(tenant.owner, tenant.app.slug, 'notes', { fields: [{ name: 'text', type: 'string' }] });
    const deleted = await tenant.owner.delete(`/api/cloud/organizations/${org}/?confirm=${org}`);
    expect(deleted.status).toBe(202);
    const orgTomb = await platform.deps.store.doc.send(
      new QueryCommand({
        TableName: platform.deps.store.table,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: {
          ':pk': deletionKeys.partition,
          ':prefix': deletionKeys.organizationsNamed(org),
        },
        ConsistentRead: true,
      }),
    );
    const key = orgTomb.Items?.[0] as { PK: string; SK: string } | undefined;
    // Already finished by the sweep (it runs beside the answer) or still owed: either way it goes.
    if (key) await awaitGone({ PK: key.PK, SK: key.SK });
    const sql = platform.deps.sql();
    expect(
      await sql`SELECT 1 FROM information_schema.schemata WHERE schema_name = ${siteSchemaName(site.slug)}`,
    ).toHaveLength(0);
    expect(await partition(`ORG#${org}`)).toEqual([]);
    expect(await partition(`SITE#${site.slug}`)).toEqual([]);
  });

  it('a user deletion answered 202 finishes with no further request', async () => {
    const tenant = await createTenant(platform);
    const { user, api } = await createUser(platform);
    expect(
      (
        await platform.adminApi.post(`/api/cloud/organizations/${tenant.organization.slug}/members/`, {
          user_id: user.id,
        })
      ).status,
    ).toBe(200);
    await grantSite(tenant, user.id, ['view_site']);
    for (const name of ['Readers', 'Writers', 'Keepers']) {
      const role = await tenant.owner.post('/api/roles/', { name });
      expect(role.status).toBe(201);
      const added = await tenant.owner.post(`/api/roles/${role.body.data.slug}/users`, {
        usernames: [user.username],
      });
      expect(added.status).toBe(200);
    }
    const erased = await api.delete(`/api/cloud/users/${user.id}/?confirm=${user.username}`);
    expect(erased.status).toBe(202);
    await awaitGone(deletionKeys.user(user.id));
    expect(await partition(`USER#${user.id}`)).toEqual([]);
    expect(await partition(`SITE#${tenant.site.slug}`)).not.toContainEqual(
      expect.objectContaining({ SK: expect.stringContaining(`PERM#`), user_id: user.id }),
    );
  });
});

describe('the sweep, and the cloud sweeper that runs it', () => {
  it('finishes every pending deletion, of every tenant, in passes of DELETION_STEPS_PER_REQUEST', async () => {
    const quiet = await startTestPlatform({
      DELETION_STEPS_PER_REQUEST: '1',
      DELETIONS_IN_BACKGROUND: 'false',
    });
    try {
      const tenants = [await createTenant(quiet), await createTenant(quiet)];
      for (const tenant of tenants) {
        await createTable(tenant.owner, tenant.app.slug, 'notes', {
          fields: [{ name: 'text', type: 'string' }],
        });
        await createTable(tenant.owner, tenant.app.slug, 'tags', {
          fields: [{ name: 'text', type: 'string' }],
        });
        expect((await tenant.owner.delete(`/api/apps/${tenant.app.slug}/`)).status).toBe(202);
      }
      const keys = tenants.map((tenant) => deletionKeys.app(tenant.site.slug, tenant.app.id));
      const { store } = quiet.deps;
      const pending = async () =>
        Promise.all(
          keys.map(
            async (key) =>
              (
                await store.doc.send(
                  new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }),
                )
              ).Item,
          ),
        );
      // Nothing runs them here (no background, no request).
      expect((await pending()).every(Boolean)).toBe(true);
      // A sweep asked to stop at once leaves them all; so does the sweeper Lambda with too little time left.
      expect(await sweepDeletions(quiet.deps, { shouldStop: () => true })).toMatchObject({
        finished: 0,
        owed: 2,
      });
      const lambda = sweeper(() => quiet.deps);
      expect(
        await lambda({ sweep: 'deletions' }, { getRemainingTimeInMillis: () => marginMs - 1 }),
      ).toMatchObject({ finished: 0, owed: 2 });
      expect((await pending()).every(Boolean)).toBe(true);
      // A cleanup that fails (here: no database) fails the invocation, for the sweeper's alarm, and leaves the work.
      const broken = sweeper(() => ({
        ...quiet.deps,
        sql: () => {
          throw new Error('no database');
        },
      }));
      await expect(broken({}, { getRemainingTimeInMillis: () => 5 * 60_000 })).rejects.toThrow(
        '2 deletion cleanup(s) failed; 2 deletion(s) still pending',
      );
      expect((await pending()).every(Boolean)).toBe(true);
      // With time, the sweeper Lambda's entry point finishes both, pass after pass.
      const result = await lambda({}, { getRemainingTimeInMillis: () => 5 * 60_000 });
      expect(result).toEqual({ finished: 2, failed: 0, owed: 0 });
      expect((await pending()).some(Boolean)).toBe(false);
    } finally {
      await quiet.stop();
    }
  });
});
