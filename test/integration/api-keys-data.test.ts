import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyHash, apiKeyKeys } from '../../shared/api-keys/model';
import { getItems } from '../../shared/store/batch';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant, unique } from '../support/tenant';

/**
 * API keys on the data plane (PostgreSQL): a backend with a key reads and writes its site's records within the
 * key's permissions, and never another site's, even one of its own organization.
 */

let platform: TestPlatform;
let a: Tenant;
let b: Tenant;

const keysPath = (tenant: Tenant) =>
  `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/api-keys/`;

async function keyOf(tenant: Tenant, permissions: string[]): Promise<string> {
  const made = await tenant.owner.post(keysPath(tenant), { name: unique('Backend'), permissions });
  if (made.status !== 201) throw new Error(`key: ${made.status} ${made.text}`);
  return made.body.key;
}

beforeAll(async () => {
  platform = await startTestPlatform();
  [a, b] = await Promise.all([createTenant(platform), createTenant(platform)]);
  for (const tenant of [a, b]) {
    await createTable(tenant.owner, tenant.app.slug, 'notes', {
      fields: [{ name: 'title', type: 'string' }],
    });
    await insert(tenant.owner, tenant.app.slug, 'notes', { title: `secret of ${tenant.site.slug}` });
  }
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

describe('a key on the data routes', () => {
  it('writes and reads its own site’s records with change_site', async () => {
    const api = platform.api.withToken(await keyOf(a, ['change_site']));
    const made = await api.post(dataPath(a.app.slug, 'notes'), { title: 'from a backend' });
    expect(made.status, made.text).toBe(201);
    const listed = await api.get(dataPath(a.app.slug, 'notes'));
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('from a backend');
    expect(listed.text).toContain(`secret of ${a.site.slug}`);
    expect(listed.text).not.toContain(`secret of ${b.site.slug}`);
  });

  it('reads but does not write with view_site', async () => {
    const api = platform.api.withToken(await keyOf(a, ['view_site']));
    expect((await api.get(dataPath(a.app.slug, 'notes'))).status).toBe(200);
    expect((await api.post(dataPath(a.app.slug, 'notes'), { title: 'refused' })).status).toBe(403);
  });

  it("never reaches another site's records, with or without that site's app in the path", async () => {
    const api = platform.api.withToken(await keyOf(a, ['change_site']));
    const other = await api.forSite(b.site.slug).get(dataPath(b.app.slug, 'notes'));
    expect(other.status).toBe(403);
    expect(other.text).not.toContain(`secret of ${b.site.slug}`);
    // B's app under A's site is simply not one of A's apps.
    const crossed = await api.get(dataPath(b.app.slug, 'notes'));
    expect(crossed.status).toBe(404);
    expect(crossed.text).not.toContain(`secret of ${b.site.slug}`);
  });
});

describe("a deleted site's keys", () => {
  it('are removed with the site, hash and last use included, and never work on a new site of the slug', async () => {
    const tenant = await createTenant(platform);
    const made = await tenant.owner.post(keysPath(tenant), { name: 'Doomed', permissions: ['view_site'] });
    expect(made.status).toBe(201);
    const key = made.body.key as string;
    expect((await platform.api.withToken(key).get('/api/apps/')).status).toBe(200);
    const { organization, site } = tenant;
    const path = `/api/cloud/organizations/${organization.slug}/sites/${site.slug}/?confirm=${site.slug}`;
    expect((await tenant.owner.delete(path)).status).toBe(204);
    const wanted = [apiKeyKeys.byHash(apiKeyHash(key)), apiKeyKeys.lastUse(made.body.id)];
    const left = await getItems(platform.deps.store, wanted);
    expect(wanted.map((item) => left(item))).toEqual([undefined, undefined]);
    const again = await tenant.owner.post(`/api/cloud/organizations/${organization.slug}/sites/`, {
      name: 'Again',
      slug: site.slug,
    });
    expect(again.status).toBe(201);
    expect((await platform.api.withToken(key).get('/api/apps/')).status).toBe(401);
  });
});
