import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deletionKeys } from '../../shared/lifecycle/keys';
import { cleanUpOne, pendingDeletions, type Tombstone } from '../../shared/lifecycle/runner';
import { sweepDeletions } from '../../shared/lifecycle/sweep';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, type Tenant, unique } from '../support/tenant';

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

/**
 * A cleanup that read its tombstone before another cleaner finished it: the background sweep reads the pending
 * deletions once and works through them for minutes, the scope's own requests finish the same deletions meanwhile,
 * and the name is then free for anyone. Such a stale cleanup must touch nothing of the name's new owner: here it is
 * run by hand, with the tombstone read before the name was taken again (the sweep's `pendingDeletions` list).
 */
describe('cross-tenant trust suite: a stale cleanup leaves the name’s new owner alone', () => {
  async function createOnceFree(create: () => Promise<{ status: number }>): Promise<void> {
    let status = 0;
    for (let attempt = 0; attempt < 200 && status !== 201; attempt++) status = (await create()).status;
    expect(status).toBe(201);
  }

  async function tombstoneOf(prefix: string): Promise<Tombstone> {
    const [tomb] = await pendingDeletions(platform.deps.store, prefix);
    expect(tomb).toBeDefined();
    return tomb as Tombstone;
  }

  /** A site's type, secret and role (the kinds a site's cleanup removes by the site's name). */
  async function siteContent(owner: Tenant['owner']): Promise<string> {
    expect(
      (await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' })).status,
    ).toBe(201);
    expect(
      (await owner.post('/api/secrets/', { secret_type: 'token', key: 'k', value: { v: 2 }, app: null }))
        .status,
    ).toBe(201);
    const role = await owner.post('/api/roles/', { name: 'editors' });
    expect(role.status).toBe(201);
    return role.body.data.slug as string;
  }

  async function siteContentIntact(owner: Tenant['owner'], role: string): Promise<void> {
    expect((await owner.get('/api/secrets/k/')).status).toBe(200);
    expect((await owner.get('/api/secret-types/token/')).status).toBe(200);
    expect((await owner.get(`/api/roles/${role}`)).status).toBe(200);
    expect((await owner.get('/api/apps/')).status).toBe(200);
  }

  it("a stale site cleanup leaves B's site of the same slug", async () => {
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    await siteContent(a.owner);
    const path = `/api/cloud/organizations/${a.organization.slug}/sites/${a.site.slug}/?confirm=${a.site.slug}`;
    expect((await a.owner.delete(path)).status).toBe(202);
    const stale = await tombstoneOf(deletionKeys.sitesNamed(a.site.slug));
    // B's creates of the slug finish A's cleanup (one step each), then B's site takes the name.
    await createOnceFree(() =>
      b.owner.post(`/api/cloud/organizations/${b.organization.slug}/sites/`, {
        name: 'Taken',
        slug: a.site.slug,
      }),
    );
    const owner = b.owner.forSite(a.site.slug);
    const role = await siteContent(owner);
    // The sweep that read A's tombstone before goes on with it.
    await cleanUpOne(platform.deps, stale, { left: 10_000 });
    await siteContentIntact(owner, role);
  });

  it("a stale organization cleanup leaves B's organization of the same slug and its sites", async () => {
    const a = await createTenant(platform);
    const b = await createUser(platform);
    const org = a.organization.slug;
    expect((await a.owner.delete(`/api/cloud/organizations/${org}/?confirm=${org}`)).status).toBe(202);
    const stale = await tombstoneOf(deletionKeys.organizationsNamed(org));
    await createOnceFree(() => b.api.post('/api/cloud/organizations/', { name: 'Taken', slug: org }));
    const site = await b.api.post(`/api/cloud/organizations/${org}/sites/`, { name: unique('Site') });
    expect(site.status).toBe(201);
    const owner = b.api.forSite(site.body.slug);
    const role = await siteContent(owner);
    await cleanUpOne(platform.deps, stale, { left: 10_000 });
    expect((await b.api.get(`/api/cloud/organizations/${org}/`)).status).toBe(200);
    const sites = await b.api.get(`/api/cloud/organizations/${org}/sites/`);
    expect(sites.body.results.map((s: { slug: string }) => s.slug)).toContain(site.body.slug);
    await siteContentIntact(owner, role);
  });

  it("a stale app cleanup leaves the secrets of the site's new app of the same slug", async () => {
    const a = await createTenant(platform);
    const made = await a.owner.post('/api/apps/', { name: 'Reused', slug: 'reused' });
    expect(made.status).toBe(201);
    await a.owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
    for (const key of ['k1', 'k2'])
      expect(
        (await a.owner.post('/api/secrets/', { secret_type: 'token', key, value: { v: 1 }, app: 'reused' }))
          .status,
      ).toBe(201);
    expect((await a.owner.delete('/api/apps/reused/')).status).toBe(202);
    const stale = await tombstoneOf(deletionKeys.appsOf(a.site.slug));
    await createOnceFree(() => a.owner.post('/api/apps/', { name: 'Reused', slug: 'reused' }));
    expect(
      (
        await a.owner.post('/api/secrets/', {
          secret_type: 'token',
          key: 'k1',
          value: { v: 2 },
          app: 'reused',
        })
      ).status,
    ).toBe(201);
    await cleanUpOne(platform.deps, stale, { left: 10_000 });
    const kept = await a.owner.get('/api/secrets/k1/?app=reused');
    expect(kept.status).toBe(200);
    expect((await a.owner.get('/api/secrets/k1/history/?app=reused')).body.total_count).toBe(1);
  });
});

describe('cross-tenant trust suite: the background sweep is shared fairly', () => {
  it("A's deletion that needs many passes does not hold back B's that needs one", async () => {
    // Nothing else pending: the sweep below sees A's deletion and B's only.
    await sweepDeletions(platform.deps);
    const a = await createTenant(platform);
    const b = await createTenant(platform);
    // A's site sorts first among the pending deletions; B's last.
    const siteOf = async (tenant: Tenant, slug: string) => {
      const made = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/sites/`, {
        name: slug,
        slug,
      });
      expect(made.status).toBe(201);
      return tenant.owner.forSite(slug);
    };
    const early = await siteOf(a, unique('aaaa'));
    const lateSlug = unique('zzzz');
    const late = await siteOf(b, lateSlug);
    expect((await early.post('/api/apps/', { name: 'Big', slug: 'big' })).status).toBe(201);
    await early.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
    // Twelve secrets: twelve passes of one step each (DELETION_STEPS_PER_REQUEST 1).
    for (let i = 0; i < 12; i++)
      expect(
        (
          await early.post('/api/secrets/', {
            secret_type: 'token',
            key: `k${i}`,
            value: { v: i },
            app: 'big',
          })
        ).status,
      ).toBe(201);
    expect((await late.post('/api/apps/', { name: 'Small', slug: 'small' })).status).toBe(201);
    await late.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
    // Two secrets: the deleting request removes one, one pass of the sweep the other.
    for (const key of ['k0', 'k1'])
      expect(
        (await late.post('/api/secrets/', { secret_type: 'token', key, value: { v: 1 }, app: 'small' }))
          .status,
      ).toBe(201);
    expect((await early.delete('/api/apps/big/')).status).toBe(202);
    expect((await late.delete('/api/apps/small/')).status).toBe(202);
    // A sweep that may run four passes (a Lambda whose time runs out, a server that stops).
    let passes = 0;
    const swept = await sweepDeletions(platform.deps, { shouldStop: () => ++passes > 4 });
    expect(await pendingDeletions(platform.deps.store, deletionKeys.appsOf(lateSlug))).toEqual([]);
    expect(swept.owed).toBe(1);
  });
});
