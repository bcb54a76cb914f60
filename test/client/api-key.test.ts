import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ok } from '../../client/src/index';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';
import { countingFetch } from './browser-fetch';

/** A backend on the typed client with an API key (docs/client.md, "API keys"): no sign-in, no refresh. */

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  const owner = createClient({ baseUrl: platform.baseUrl, site: tenant.site.slug, auth: { type: 'bearer' } });
  await owner.signIn(tenant.ownerUser.username, 'Velvet-Harbor-Quill-42');
  await owner
    .app(tenant.app.slug)
    .create({ name: 'orders', schema: { fields: [{ name: 'item', type: 'string' }] } });
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

describe('the typed client with an API key', () => {
  it('creates a key as a user, then works with it as a backend; a revoked key is a 401 without a refresh', async () => {
    const admin = createClient({ baseUrl: platform.baseUrl, auth: { type: 'bearer' } });
    await admin.signIn(tenant.ownerUser.username, 'Velvet-Harbor-Quill-42');
    const params = { path: { org_slug: tenant.organization.slug, site_slug: tenant.site.slug } };
    const made = ok(
      await admin.POST('/api/cloud/organizations/{org_slug}/sites/{site_slug}/api-keys/', {
        params,
        body: { name: 'Orders backend', permissions: ['change_site'] },
      }),
    );
    expect(made.key.startsWith('tbk_')).toBe(true);

    const counted = countingFetch();
    const backend = createClient({
      baseUrl: platform.baseUrl,
      site: tenant.site.slug,
      auth: { type: 'apiKey', key: made.key },
      fetch: counted.fetch,
    });
    const orders = backend.app(tenant.app.slug).table<{ id: string; item: string }>('orders');
    const order = await orders.create({ item: 'tea' });
    expect(order.item).toBe('tea');
    expect((await orders.list()).data.map((row) => row.item)).toContain('tea');

    ok(
      await admin.DELETE('/api/cloud/organizations/{org_slug}/sites/{site_slug}/api-keys/{key_id}/', {
        params: { path: { ...params.path, key_id: made.id } },
      }),
    );
    const refused = await orders.list().catch((error) => error);
    expect(refused.status).toBe(401);
    expect(counted.count('POST /api/auth/jwt/refresh/')).toBe(0);
  });
});
