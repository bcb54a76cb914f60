import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** Dates, times and datetimes over the whole range the API represents, back exactly as they went in. */

let platform: TestPlatform;
let tenant: Tenant;
let app: string;
let events: string;

beforeAll(async () => {
  platform = await startTestPlatform({ DATABASE_STATEMENT_TIMEOUT_MS: '7000' });
  tenant = await createTenant(platform);
  app = tenant.app.slug;
  await createTable(tenant.owner, app, 'events', {
    fields: [
      { name: 'at', type: 'datetime' },
      { name: 'day', type: 'date' },
      { name: 'clock', type: 'time' },
      { name: 'created_at', type: 'datetime' },
    ],
  });
  events = dataPath(app, 'events');
});
afterAll(async () => {
  await platform.stop();
});

describe('datetime round trips', () => {
  it.each([
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00.000001Z', '0001-01-01T00:00:00.000001Z'],
    ['0099-12-31T23:59:59.999Z', '0099-12-31T23:59:59.999Z'],
    ['0100-03-01T12:00:00+02:00', '0100-03-01T10:00:00.000Z'],
    ['0999-06-15T08:30:00-05:30', '0999-06-15T14:00:00.000Z'],
    ['1582-10-15T00:00:00Z', '1582-10-15T00:00:00.000Z'],
    ['1900-01-01T00:00:00Z', '1900-01-01T00:00:00.000Z'],
    ['1969-12-31T23:59:59.5Z', '1969-12-31T23:59:59.500Z'],
    ['2024-02-29T10:11:12.123456+00:00', '2024-02-29T10:11:12.123456Z'],
    ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999Z'],
    ['0001-01-01T01:00:00+01:00', '0001-01-01T00:00:00.000Z'],
  ])('stores %s and shows %s, in records and filters', async (input, shown) => {
    const record = await insert(tenant.owner, app, 'events', { at: input });
    expect(record.at).toBe(shown);
    const read = await tenant.owner.get(`${events}${record.id}/`);
    expect(read.body.data.at).toBe(shown);
    const found = await tenant.owner.get(`${events}?at=${encodeURIComponent(input)}`);
    expect(found.status).toBe(200);
    expect(found.body.data.map((row: { id: string }) => row.id)).toContain(record.id);
  });

  it.each(['0001-01-01', '0050-06-15', '0099-12-31', '1000-01-01', '2000-02-29', '9999-12-31'])(
    'stores the date %s as it is',
    async (on) => {
      const record = await insert(tenant.owner, app, 'events', { day: on });
      expect(record.day).toBe(on);
      expect((await tenant.owner.get(`${events}${record.id}/`)).body.data.day).toBe(on);
    },
  );

  it.each([
    ['00:00', '00:00:00'],
    ['23:59:59.999999', '23:59:59.999999'],
    ['12:30:15', '12:30:15'],
  ])('stores the time %s as %s', async (time, shown) => {
    expect((await insert(tenant.owner, app, 'events', { clock: time })).clock).toBe(shown);
  });

  it('shows the platform timestamps in the same form', async () => {
    const record = await insert(tenant.owner, app, 'events', {});
    expect(record.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(\d{3})?Z$/);
  });
});

describe('values the API cannot represent', () => {
  it.each([
    ['at', '0000-12-31T23:59:59Z'],
    ['at', '0001-01-01T00:30:00+01:00'],
    ['at', '9999-12-31T23:30:00-01:00'],
    ['at', '10000-01-01T00:00:00Z'],
    ['at', '2024-01-01T00:00:00.1234567Z'],
    ['at', 'infinity'],
    ['at', '-infinity'],
    ['at', '2024-01-01T00:00:00Z BC'],
    ['day', '0000-01-01'],
    ['day', '10000-01-01'],
    ['day', 'infinity'],
    ['day', '2023-02-29'],
  ])('refuses %s = %j with a 400 naming the field', async (field, value) => {
    const response = await tenant.owner.post(events, { [field]: value });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual([field]);
  });

  it('refuses them as filter values too', async () => {
    const response = await tenant.owner.get(`${events}?at=${encodeURIComponent('0000-12-31T23:59:59Z')}`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.details)).toEqual(['at']);
  });
});

describe('data-plane sessions', () => {
  it('run with the configured statement timeout, in UTC, with the default plan choice (PGlite ignores startup settings: no timeout there)', async () => {
    const [settings] = await platform.deps.sql()`SELECT current_setting('statement_timeout') AS timeout,
      current_setting('TimeZone') AS zone, current_setting('plan_cache_mode') AS plans,
      version() LIKE '%PGlite%' AS pglite`;
    expect(settings).toEqual({
      timeout: settings?.pglite ? '0' : '7s',
      zone: 'UTC',
      // Prepared statements keep a generic plan when PostgreSQL finds it no dearer (data-statement-plans.test.ts).
      plans: 'auto',
      pglite: settings?.pglite,
    });
  });
});
