import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { siteSchemaName } from '../../shared/data/schema/names';
import { createTable, dataPath, insert } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * How PostgreSQL plans the data plane's statements (docs/architecture.md, on `prepare: true`): a prepared statement
 * whose plan does not depend on its values (one record by key) keeps the plan PostgreSQL settles on instead of being
 * planned again on every request; a grouped read, whose best plan depends on its limit, is planned for its values
 * every time. One connection in the pool, so that `pg_prepared_statements` (per session) shows what the requests
 * prepared. Behind a transaction-pooling proxy (CI's PgBouncer pass) nothing is prepared by name at all:
 * test/integration/proxy-session-state.test.ts proves that instead.
 */

describe.skipIf(inject('databaseProxy'))('on a direct connection', () => {
  let platform: TestPlatform;
  let tenant: Tenant;
  let ids: string[];

  beforeAll(async () => {
    platform = await startTestPlatform({ DATABASE_POOL_SIZE: '1' });
    tenant = await createTenant(platform);
    await createTable(tenant.owner, tenant.app.slug, 'items', {
      fields: [
        { name: 'title', type: 'string' },
        { name: 'category', type: 'string' },
        { name: 'price', type: 'integer' },
      ],
    });
    ids = [];
    for (let n = 0; n < 12; n++) {
      const record = await insert(tenant.owner, tenant.app.slug, 'items', {
        title: `item ${n}`,
        category: `cat-${n % 3}`,
        price: n * 10,
      });
      ids.push(String(record.id));
    }
  });
  afterAll(async () => {
    await platform.stop();
  });

  interface Prepared {
    statement: string;
    generic_plans: number;
    custom_plans: number;
  }

  /** The statements prepared on the pool's one connection that read this tenant's schema. */
  async function prepared(of: Tenant = tenant): Promise<Prepared[]> {
    const sql = platform.deps.sql();
    const rows = await sql`SELECT statement, generic_plans::integer AS generic_plans,
      custom_plans::integer AS custom_plans FROM pg_prepared_statements`;
    const schema = siteSchemaName(of.site.slug);
    return (rows as unknown as Prepared[]).filter((row) => row.statement.includes(`"${schema}"`));
  }

  describe('statement plans', () => {
    it('a get by key keeps its plan after the first executions instead of planning on every request', async () => {
      for (let n = 0; n < 12; n++) {
        const response = await tenant.owner.get(`${dataPath(tenant.app.slug, 'items')}${ids[n]}/`);
        expect(response.status).toBe(200);
        expect(response.body.data.title).toBe(`item ${n}`);
      }
      const byKey = (await prepared()).filter(
        (row) => row.statement.includes('LATERAL') && !/LIMIT|GROUP BY/i.test(row.statement),
      );
      expect(byKey.length).toBeGreaterThan(0);
      const executions = byKey.reduce((sum, row) => sum + row.generic_plans + row.custom_plans, 0);
      expect(executions).toBeGreaterThanOrEqual(12);
      // PostgreSQL tries five custom plans before it compares them with the generic one (plan_cache_mode auto).
      expect(byKey.reduce((sum, row) => sum + row.generic_plans, 0)).toBeGreaterThan(0);
    });

    it('a grouped read is planned for its values every time: it is never kept as a prepared statement', async () => {
      for (let n = 0; n < 8; n++) {
        const response = await tenant.owner.get(
          `${dataPath(tenant.app.slug, 'items')}?_group_by=category&_aggregate=count(*),sum(price)&page_size=${2 + (n % 2)}`,
        );
        expect(response.status).toBe(200);
        expect(response.body.data.length).toBe(2 + (n % 2));
        expect(response.body.data[0]).toMatchObject({ category: 'cat-0', count: 4, sum_price: 180 });
      }
      const grouped = (await prepared()).filter((row) => /GROUP BY/i.test(row.statement));
      expect(grouped).toEqual([]);
    });

    it("keeps each tenant's statements apart: another tenant's same table gets statements of its own", async () => {
      const other = await createTenant(platform);
      await createTable(other.owner, other.app.slug, 'items', {
        fields: [{ name: 'title', type: 'string' }],
      });
      const record = await insert(other.owner, other.app.slug, 'items', { title: 'theirs' });
      for (let n = 0; n < 6; n++) {
        const response = await other.owner.get(`${dataPath(other.app.slug, 'items')}${record.id}/`);
        expect(response.body.data.title).toBe('theirs');
      }
      const mine = siteSchemaName(tenant.site.slug);
      const theirs = await prepared(other);
      expect(theirs.length).toBeGreaterThan(0);
      expect(theirs.filter((row) => row.statement.includes(`"${mine}"`))).toEqual([]);
    });
  });
});
