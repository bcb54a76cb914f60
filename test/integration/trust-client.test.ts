import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, DataError } from '../../client/src/index';
import { dataProvider } from '../../client/src/refine';
import { countingFetch } from '../client/browser-fetch';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: the typed client. A tenant's client reaches only its own site's data
 * (naming another site or app gets the API's refusal as a typed error, nothing else), and the client sends its
 * credentials to the API's origin only, whatever URL a caller hands it.
 */

let platform: TestPlatform;
let ours: Tenant;
let theirs: Tenant;
const password = 'Velvet-Harbor-Quill-42';

beforeAll(async () => {
  platform = await startTestPlatform();
  ours = await createTenant(platform);
  theirs = await createTenant(platform);
  const owner = createClient({ baseUrl: platform.baseUrl, site: theirs.site.slug, auth: { type: 'bearer' } });
  await owner.signIn(theirs.ownerUser.username, password);
  await owner
    .app(theirs.app.slug)
    .create({ name: 'ledger', schema: { fields: [{ name: 'amount', type: 'integer' }] } });
  await owner.app(theirs.app.slug).table('ledger').create({ amount: 7 });
});
afterAll(async () => {
  await platform.stop();
});

describe('cross-tenant trust suite: the typed client', () => {
  it("cannot read another tenant's table by naming its site or its app", async () => {
    const asTheirSite = createClient({
      baseUrl: platform.baseUrl,
      site: theirs.site.slug,
      auth: { type: 'bearer' },
    });
    await asTheirSite.signIn(ours.ownerUser.username, password);
    const bySite = await asTheirSite
      .app(theirs.app.slug)
      .table('ledger')
      .list()
      .catch((caught) => caught);
    expect(bySite).toBeInstanceOf(DataError);
    expect([403, 404]).toContain(bySite.status);

    const ourSite = createClient({
      baseUrl: platform.baseUrl,
      site: ours.site.slug,
      auth: { type: 'bearer' },
    });
    await ourSite.signIn(ours.ownerUser.username, password);
    const byApp = await dataProvider(ourSite, { app: theirs.app.slug })
      .getList({ resource: 'ledger' })
      .catch((caught) => caught);
    expect(byApp).toBeInstanceOf(DataError);
    expect(byApp.status).toBe(404);
  });

  it('never sends its token to another origin (refine custom with a foreign URL)', async () => {
    const counter = countingFetch();
    const client = createClient({
      baseUrl: platform.baseUrl,
      site: ours.site.slug,
      auth: { type: 'bearer' },
      fetch: counter.fetch,
    });
    await client.signIn(ours.ownerUser.username, password);
    const before = counter.requests.length;
    const provider = dataProvider(client, { app: ours.app.slug });
    for (const url of ['http://attacker.example/collect', '//attacker.example/collect']) {
      const error = await provider.custom?.({ url, method: 'get' }).catch((caught) => caught);
      expect(error).toBeInstanceOf(TypeError);
    }
    expect(counter.requests.length).toBe(before);
    const own = await provider.custom?.({
      url: `${platform.baseUrl}/api/cloud/users/me/?x=1`,
      method: 'get',
    });
    expect((own?.data as { username?: string } | undefined)?.username).toBe(ours.ownerUser.username);
  });
});
