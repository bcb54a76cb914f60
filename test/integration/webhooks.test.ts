import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';
import { type Receiver, startReceiver } from '../support/webhook-receiver';

let platform: TestPlatform;
let tenant: Tenant;
let other: Tenant;
let receiver: Receiver;
let app: string;
let secret: string;
let webhookId: number;

const hooks = () => `/api/apps/${app}/webhooks/`;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  receiver = await startReceiver();
  platform = await startTestPlatform({ WEBHOOKS_ALLOWED_HOSTS: receiver.host });
  tenant = await createTenant(platform);
  other = await createTenant(platform);
  app = tenant.app.slug;
  const schema = {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'code', type: 'string', constraints: { unique: true } },
      { name: 'card', type: 'string', sensitive: true },
      { name: 'updated_at', type: 'datetime' },
      { name: 'is_deleted', type: 'boolean' },
    ],
  };
  await createTable(tenant.owner, app, 'orders', schema);
  await createTable(tenant.owner, app, 'quiet', { fields: [{ name: 'title', type: 'string' }] });
  await createTable(other.owner, other.app.slug, 'orders', schema);
  const created = await tenant.owner.post(hooks(), {
    url: receiver.url,
    events: ['POST_RECORD_CREATE', 'POST_RECORD_UPDATE', 'POST_RECORD_DELETE'],
    tables: ['orders'],
  });
  expect(created.status).toBe(201);
  secret = created.body.data.secret;
  webhookId = created.body.data.id;
});
afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

/** Every received hook verified by the package's own verifier; their payloads. */
function verified(): any[] {
  const wh = new Webhook(secret);
  return receiver.received.map((hook) => wh.verify(hook.body, hook.headers));
}

describe('webhook endpoints', () => {
  it('answers 201 with the endpoint and its secret once; reads never show the secret', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const one = await tenant.owner.get(`${hooks()}${webhookId}/`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      success: true,
      data: { id: webhookId, url: receiver.url, tables: ['orders'] },
    });
    expect(one.body.data.secret).toBeUndefined();
    const list = await tenant.owner.get(hooks());
    expect(list.body.data.total).toBe(1);
    expect(JSON.stringify(list.body)).not.toContain(secret);
  });

  it.each([
    ['https://127.0.0.1/x', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://10.0.0.8/x', 'private'],
    ['https://localhost/x', 'local host'],
    ['http://example.com/x', 'https'],
  ])('refuses %s (400 naming the url)', async (url, word) => {
    const response = await tenant.owner.post(hooks(), {
      url,
      events: ['POST_RECORD_CREATE'],
      tables: ['orders'],
    });
    expect(response.status).toBe(400);
    expect(response.body.success).toBe(false);
    expect(response.body.message).toMatch(/^url: /);
    expect(response.body.message).toContain(word);
  });

  it('refuses unknown events and empty tables with 400', async () => {
    const bad = await tenant.owner.post(hooks(), { url: receiver.url, events: ['NOPE'], tables: ['orders'] });
    expect(bad.status).toBe(400);
    const empty = await tenant.owner.post(hooks(), {
      url: receiver.url,
      events: ['POST_RECORD_CREATE'],
      tables: [],
    });
    expect(empty.status).toBe(400);
  });

  it("another tenant's owner cannot read, change, replay or remove the endpoint (404)", async () => {
    const path = `/api/apps/${other.app.slug}/webhooks/${webhookId}/`;
    expect((await other.owner.get(path)).status).toBe(404);
    expect((await other.owner.patch(path, { enabled: false })).status).toBe(404);
    expect((await other.owner.post(`${path}replay/`, { since: '2000-01-01T00:00:00Z' })).status).toBe(404);
    expect((await other.owner.delete(path)).status).toBe(404);
    expect((await tenant.owner.get(`${hooks()}${webhookId}/`)).body.data.enabled).toBe(true);
  });
});

describe('record events delivered, signed', () => {
  it('names an API key, with its creator, as the actor of the writes it makes', async () => {
    const keys = `/api/cloud/organizations/${tenant.organization.slug}/sites/${tenant.site.slug}/api-keys/`;
    const made = await tenant.owner.post(keys, { name: 'Indexer', permissions: ['change_site'] });
    expect(made.status, made.text).toBe(201);
    const backend = platform.api.withToken(made.body.key).forSite(tenant.site.slug);
    const before = receiver.received.length;
    const created = await backend.post(dataPath(app, 'orders'), { title: 'by a key', code: 'K1' });
    expect(created.status, created.text).toBe(201);
    await receiver.until((got) => got.length >= before + 1);
    const [event] = verified().slice(before);
    expect(event.actor).toEqual({
      type: 'api_key',
      id: made.body.id,
      created_by: { id: tenant.ownerUser.id, username: tenant.ownerUser.username },
    });
  });

  it('delivers create, update, soft and hard delete of one record in commit order, each verified', async () => {
    const before = receiver.received.length;
    const orders = dataPath(app, 'orders');
    const record = await insert(tenant.owner, app, 'orders', { title: 'first', code: 'A1', card: '4111' });
    expect(record.card).toBe('4111');
    expect((await tenant.owner.patch(`${orders}${record.id}/`, { title: 'second' })).status).toBe(200);
    expect((await tenant.owner.delete(`${orders}${record.id}/`)).status).toBeLessThan(300);
    expect((await tenant.owner.delete(`${orders}${record.id}/?hard_delete=true`)).status).toBeLessThan(300);
    await receiver.until((got) => got.length >= before + 4);
    const events = verified().slice(before);
    expect(events.map((event) => event.event)).toEqual([
      'POST_RECORD_CREATE',
      'POST_RECORD_UPDATE',
      'POST_RECORD_DELETE',
      'POST_RECORD_DELETE',
    ]);
    const [created, updated, soft, hard] = events;
    expect(created).toMatchObject({
      site: tenant.site.slug,
      app,
      table: 'orders',
      key: String(record.id),
      record: { id: record.id, title: 'first', code: 'A1' },
      previous: null,
      actor: { type: 'user', id: tenant.ownerUser.id, username: tenant.ownerUser.username },
    });
    expect(created.id).toMatch(uuid);
    // The sensitive field is left out of every payload, before and after.
    expect(events.some((event) => JSON.stringify(event).includes('card'))).toBe(false);
    expect(new Set(events.map((event) => event.id)).size).toBe(4);
    expect(updated).toMatchObject({ previous: { title: 'first' }, record: { title: 'second' } });
    expect(soft).toMatchObject({
      deletion: 'soft',
      previous: { is_deleted: false },
      record: { is_deleted: true },
    });
    expect(hard).toMatchObject({ deletion: 'hard', record: null, previous: { id: record.id } });
    const headers = receiver.received[before]?.headers ?? {};
    expect(headers['webhook-id']).toBe(created.id);
  });

  it('a bulk create and an upsert produce one event per record; other tables and tenants produce none', async () => {
    const before = receiver.received.length;
    await insert(tenant.owner, app, 'quiet', { title: 'not listened' });
    await insert(other.owner, other.app.slug, 'orders', { title: 'other tenant', code: 'Z9' });
    await insert(tenant.owner, app, 'orders', [
      { title: 'b1', code: 'B1' },
      { title: 'b2', code: 'B2' },
    ]);
    const upsert = await tenant.owner.post(`${dataPath(app, 'orders')}upsert/?unique_fields=code`, [
      { title: 'b1 again', code: 'B1' },
      { title: 'b3', code: 'B3' },
    ]);
    expect(upsert.status).toBe(201);
    await receiver.until((got) => got.length >= before + 4);
    const events = verified().slice(before);
    expect(events.map((event) => [event.event, event.record.code])).toEqual([
      ['POST_RECORD_CREATE', 'B1'],
      ['POST_RECORD_CREATE', 'B2'],
      ['POST_RECORD_UPDATE', 'B1'],
      ['POST_RECORD_CREATE', 'B3'],
    ]);
    expect(events[2].previous).toMatchObject({ title: 'b1' });
    expect(events.every((event) => event.site === tenant.site.slug && event.table === 'orders')).toBe(true);
  });

  it('a rolled-back write has no event', async () => {
    const before = receiver.received.length;
    // The second record breaks the unique code: the bulk insert is rolled back as a whole.
    const refused = await tenant.owner.post(dataPath(app, 'orders'), [
      { title: 'r1', code: 'R1' },
      { title: 'r2', code: 'R1' },
    ]);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    // A committed write after it: once its event arrives, anything of the rolled-back one would have too.
    await insert(tenant.owner, app, 'orders', { title: 'marker', code: 'M1' });
    await receiver.until((got) => got.some((hook) => hook.json.record?.code === 'M1'));
    const codes = verified()
      .slice(before)
      .map((event) => event.record?.code);
    expect(codes).toEqual(['M1']);
  });

  it('retries a failed attempt and shows it among the attempts; replays an event', async () => {
    let refusals = 1;
    receiver.answer = () => (refusals-- > 0 ? 503 : 204);
    const record = await insert(tenant.owner, app, 'orders', { title: 'retry me', code: 'T1' });
    await receiver.until((got) => got.some((hook) => hook.json.record?.code === 'T1'), 60_000);
    receiver.answer = () => 204;
    const report = await tenant.owner.get(`${hooks()}${webhookId}/deliveries/`);
    expect(report.status).toBe(200);
    const attempts = report.body.data.attempts.filter((a: any) =>
      verified().some((event) => event.id === a.event_id && event.record?.id === record.id),
    );
    expect(attempts.map((a: any) => a.status_code).sort()).toEqual([204, 503]);
    const delivered = report.body.data.deliveries.find((d: any) => d.record_key === String(record.id));
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 2 });

    const eventId = delivered.event_id;
    const before = receiver.received.length;
    const replayed = await tenant.owner.post(`${hooks()}${webhookId}/replay/`, { event_id: eventId });
    expect(replayed.status).toBe(200);
    expect(replayed.body.data.replayed).toBe(1);
    await receiver.until((got) => got.length > before);
    expect(verified()[before]?.id).toBe(eventId);
    const unknown = await tenant.owner.post(`${hooks()}${webhookId}/replay/`, {
      event_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.status).toBe(404);
  });

  it("one record's events wait for its earlier ones (in commit order); other records go on", async () => {
    const orders = dataPath(app, 'orders');
    // The endpoint refuses X's create once: its retry comes 5 s later.
    let refused = false;
    receiver.answer = (hook) => {
      if (!refused && hook.json.record?.code === 'X1' && hook.json.event === 'POST_RECORD_CREATE') {
        refused = true;
        return 503;
      }
      return 204;
    };
    const before = receiver.received.length;
    const x = await insert(tenant.owner, app, 'orders', { title: 'x', code: 'X1' });
    expect((await tenant.owner.patch(`${orders}${x.id}/`, { title: 'x changed' })).status).toBe(200);
    await insert(tenant.owner, app, 'orders', { title: 'y', code: 'Y1' });
    await receiver.until((got) => got.slice(before).length >= 3, 60_000);
    receiver.answer = () => 204;
    const order = verified()
      .slice(before)
      .map((event) => `${event.event}:${event.record.code}`);
    expect(refused).toBe(true);
    // Y was not held up by X; X's update came only after X's create was delivered.
    expect(order).toEqual(['POST_RECORD_CREATE:Y1', 'POST_RECORD_CREATE:X1', 'POST_RECORD_UPDATE:X1']);
  });

  it('an endpoint whose deliveries failed for a day is disabled, with its reason', async () => {
    const made = await tenant.owner.post(hooks(), {
      url: `${receiver.url}?failing`,
      events: ['POST_RECORD_CREATE'],
      tables: ['quiet'],
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id;
    receiver.answer = (hook) => (hook.json.table === 'quiet' ? 500 : 204);
    // Its failing period began 25 hours ago (as if every attempt since had failed).
    await platform.deps.sql()`UPDATE platform.webhook_endpoints SET failing_since = now() - interval '25 hours'
      WHERE id = ${id}`;
    await insert(tenant.owner, app, 'quiet', { title: 'fails' });
    const deadline = Date.now() + 30_000;
    let endpoint = (await tenant.owner.get(`${hooks()}${id}/`)).body.data;
    while (endpoint.enabled && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      endpoint = (await tenant.owner.get(`${hooks()}${id}/`)).body.data;
    }
    receiver.answer = () => 204;
    expect(endpoint).toMatchObject({ enabled: false, disabled_reason: 'every delivery failed for 24 hours' });
    const failedAttempt = (await tenant.owner.get(`${hooks()}${id}/deliveries/`)).body.data.attempts[0];
    expect(failedAttempt).toMatchObject({ status_code: 500 });
    expect((await tenant.owner.delete(`${hooks()}${id}/`)).status).toBe(200);
  });

  it('a disabled endpoint gets nothing; removing it answers 200 and then 404', async () => {
    const path = `${hooks()}${webhookId}/`;
    expect((await tenant.owner.patch(path, { enabled: false })).body.data).toMatchObject({
      enabled: false,
      disabled_reason: 'disabled by the app',
    });
    expect((await tenant.owner.delete(path)).status).toBe(200);
    expect((await tenant.owner.get(path)).status).toBe(404);
  });
});
