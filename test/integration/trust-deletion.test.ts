import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant } from '../support/tenant';

/**
 * Cross-tenant trust suite, deletions: an owner of tenant A can delete nothing of tenant B, and A's deletions leave
 * every item and row of B in place, even where B's names are the same as A's; B's pending cleanup is never done,
 * nor paid for, by A's requests.
 */

let platform: TestPlatform;
beforeAll(async () => {
  // Pending cleanup stays pending unless a request does it: no background sweep.
  platform = await startTestPlatform({ DELETION_STEPS_PER_REQUEST: '1', DELETIONS_IN_BACKGROUND: 'false' });
});
afterAll(async () => {
  await platform.stop();
});

let roleSlug = '';

/** B's app with a table and a row, an app-level secret and a role, all under the slug `shared`. */
async function withSharedSlugApp(tenant: Tenant): Promise<{ slug: string; id: number }> {
  const made = await tenant.owner.post('/api/apps/', { name: 'Shared', slug: 'shared' });
  expect(made.status).toBe(201);
  await createTable(tenant.owner, 'shared', 'notes', { fields: [{ name: 'text', type: 'string' }] });
  await insert(tenant.owner, 'shared', 'notes', { text: 'kept' });
  await tenant.owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
  expect(
    (
      await tenant.owner.post('/api/secrets/', {
        secret_type: 'token',
        key: 'k',
        value: { v: 1 },
        app: 'shared',
      })
    ).status,
  ).toBe(201);
  const role = await tenant.owner.post('/api/app/shared/roles', { name: 'editors' });
  expect(role.status).toBe(201);
  expect((await tenant.owner.get(`/api/app/shared/roles/${role.body.data.slug}`)).status).toBe(200);
  roleSlug = role.body.data.slug;
  return { slug: 'shared', id: made.body.id };
}

async function intact(tenant: Tenant): Promise<void> {
  expect((await tenant.owner.get('/api/apps/shared/')).status).toBe(200);
  const rows = await tenant.owner.get(dataPath('shared', 'notes'));
  expect(rows.status).toBe(200);
  expect(JSON.stringify(rows.body)).toContain('kept');
  expect((await tenant.owner.get('/api/secrets/k/?app=shared')).status).toBe(200);
  expect((await tenant.owner.get(`/api/app/shared/roles/${roleSlug}`)).status).toBe(200);
}

describe('cross-tenant trust suite: deletions', () => {
  it("A cannot delete B's app, by B's site or its own", async () => {
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    await withSharedSlugApp(b);
    expect((await a.owner.forSite(b.site.slug).delete('/api/apps/shared/')).status).toBe(403);
    expect((await a.owner.delete('/api/apps/shared/')).status).toBe(404);
    expect((await a.owner.delete(`/api/apps/${b.app.slug}/`)).status).toBe(404);
    await intact(b);
  });

  it("A deleting its own app of the same slug leaves B's tables, rows, secrets and roles", async () => {
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    await withSharedSlugApp(a);
    await withSharedSlugApp(b);
    expect([202, 204]).toContain((await a.owner.delete('/api/apps/shared/')).status);
    // A's own next app creates finish A's cleanup, one step each.
    for (let step = 0; step < 6; step++) await a.owner.post('/api/apps/', { name: `Next ${step}` });
    expect((await a.owner.get('/api/apps/shared/')).status).toBe(404);
    await intact(b);
  });

  it("B's pending cleanup is neither done nor paid for by A's requests", async () => {
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    const app = await withSharedSlugApp(b);
    expect((await b.owner.delete('/api/apps/shared/')).status).toBe(202);
    const key = deletionKeys.app(b.site.slug, app.id);
    const pending = async () =>
      (await platform.deps.store.doc.send(new GetCommand({ TableName: platform.deps.store.table, Key: key })))
        .Item;
    expect(await pending()).toBeDefined();
    // A's writes of the same kinds: app create and delete, in A's site.
    const made = await a.owner.post('/api/apps/', { name: 'Other' });
    expect(made.status).toBe(201);
    expect([202, 204]).toContain((await a.owner.delete(`/api/apps/${made.body.slug}/`)).status);
    expect(await pending()).toMatchObject({ app_id: app.id, site: b.site.slug });
  });

  it("A cannot erase B's people, and a member erasing itself leaves B's memberships", async () => {
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    expect(
      (await a.owner.delete(`/api/cloud/users/${b.ownerUser.id}/?confirm=${b.ownerUser.username}`)).status,
    ).toBe(404);
    expect((await b.owner.get('/api/cloud/users/me/')).status).toBe(200);
    // Someone in both organizations erases itself: only its own memberships go.
    const both = await createUser(platform);
    for (const tenant of [a, b])
      expect(
        (
          await platform.adminApi.post(`/api/cloud/organizations/${tenant.organization.slug}/members/`, {
            user_id: both.user.id,
          })
        ).status,
      ).toBe(200);
    const erased = await both.api.delete(`/api/cloud/users/${both.user.id}/?confirm=${both.user.username}`);
    expect([202, 204]).toContain(erased.status);
    const members = await b.owner.get(`/api/cloud/organizations/${b.organization.slug}/members/`);
    expect(members.body.results.map((m: { user_id: number }) => m.user_id)).toContain(b.ownerUser.id);
    expect((await b.owner.get(`/api/cloud/organizations/${b.organization.slug}/`)).status).toBe(200);
  });
});

describe('cross-tenant trust suite: a name taken again inherits nothing', () => {
  /** Creates, replaces and deletes the secret `k` at the site level, or the app's: its history stays behind it. */
  async function secretWithHistory(owner: Tenant['owner'], app: string | null): Promise<void> {
    const scope = app === null ? '' : `?app=${app}`;
    await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
    const made = await owner.post('/api/secrets/', { secret_type: 'token', key: 'k', value: { v: 1 }, app });
    expect(made.status).toBe(201);
    expect((await owner.delete(`/api/secrets/k/${scope}`)).status).toBe(200);
    expect((await owner.get(`/api/secrets/k/history/${scope}`)).body.total_count).toBeGreaterThan(1);
  }

  /** Sends `create` until the name's pending cleanup (one step per request here) is done and it answers 201. */
  async function createOnceFree(create: () => Promise<{ status: number }>): Promise<void> {
    let status = 0;
    for (let attempt = 0; attempt < 200 && status !== 201; attempt++) status = (await create()).status;
    expect(status).toBe(201);
  }

  it("a new app of a deleted app's slug does not see the old app's secret history", async () => {
    const a = await createTenant(platform);
    expect((await a.owner.post('/api/apps/', { name: 'Reused', slug: 'reused' })).status).toBe(201);
    await secretWithHistory(a.owner, 'reused');
    expect([202, 204]).toContain((await a.owner.delete('/api/apps/reused/')).status);
    await createOnceFree(() => a.owner.post('/api/apps/', { name: 'Reused', slug: 'reused' }));
    await a.owner.post('/api/secrets/', { secret_type: 'token', key: 'k', value: { v: 2 }, app: 'reused' });
    const history = await a.owner.get('/api/secrets/k/history/?app=reused');
    expect(history.status).toBe(200);
    expect(history.body.results.map((entry: { action: string }) => entry.action)).toEqual(['+']);
  });

  it("B's site of A's deleted site's slug does not see A's secret history", async () => {
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    await secretWithHistory(a.owner, null);
    const siteName = `Reused ${a.site.slug}`;
    const path = `/api/cloud/organizations/${a.organization.slug}/sites/${a.site.slug}/?confirm=${a.site.slug}`;
    expect([202, 204]).toContain((await a.owner.delete(path)).status);
    for (let step = 0; step < 200; step++) {
      const again = await a.owner.delete(path);
      if (again.status === 404) break;
    }
    await createOnceFree(() =>
      b.owner.post(`/api/cloud/organizations/${b.organization.slug}/sites/`, {
        name: siteName,
        slug: a.site.slug,
      }),
    );
    const owner = b.owner.forSite(a.site.slug);
    await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
    expect(
      (await owner.post('/api/secrets/', { secret_type: 'token', key: 'k', value: { v: 2 }, app: null }))
        .status,
    ).toBe(201);
    const history = await owner.get('/api/secrets/k/history/');
    expect(history.status).toBe(200);
    expect(history.body.results.map((entry: { action: string }) => entry.action)).toEqual(['+']);
  });
});
