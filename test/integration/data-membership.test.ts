import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * `in` and `nin` on every kind of field (docs/data-tables.md): found by the query fuzz on PostgreSQL 15, where
 * `active_nin=true` on a boolean field answered 500 (the values were bound as one array typed from JavaScript).
 */

let platform: TestPlatform;
let tenant: Tenant;
const data = () => `/api/apps/${tenant.app.slug}/datatables/things/data/`;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
  const made = await tenant.owner.post(`/api/apps/${tenant.app.slug}/datatables/`, {
    name: 'things',
    schema: {
      fields: [
        { name: 'name', type: 'string' },
        { name: 'active', type: 'boolean' },
        { name: 'views', type: 'integer' },
        { name: 'born_on', type: 'date' },
      ],
    },
  });
  expect(made.status, made.text).toBe(201);
  for (const record of [
    { name: 'a', active: true, views: 1, born_on: '2020-01-01' },
    { name: 'b', active: false, views: 2, born_on: '2021-01-01' },
    { name: 'c' },
  ]) {
    const created = await tenant.owner.post(data(), record);
    expect(created.status, created.text).toBe(201);
  }
}, 120_000);
afterAll(async () => platform.stop());

describe('membership filters', () => {
  it.each([
    ['active_in=true', ['a']],
    ['active_nin=true', ['b', 'c']],
    ['active_nin=true,false', ['c']],
    ['views_in=1,2', ['a', 'b']],
    ['views_nin=2', ['a', 'c']],
    ['born_on_in=2020-01-01', ['a']],
    ['name_nin=a,b', ['c']],
  ])('%s', async (query, names) => {
    const answer = await tenant.owner.get(`${data()}?${query}&_sort=name`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.map((record: { name: string }) => record.name)).toEqual(names);
  });
});
