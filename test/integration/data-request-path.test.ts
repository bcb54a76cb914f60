import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FieldDef } from '../../shared/data/common/model';
import { whereClause } from '../../shared/data/query/conditions';
import { listPlanOf } from '../../shared/data/records/list';
import { pageStatement } from '../../shared/data/records/reads';
import { createRecords } from '../../shared/data/records/writes';
import { siteSchemaName } from '../../shared/data/schema/names';
import { openTable } from '../../shared/data/tables/data-table';
import { createTable, dataPath, insert, tablePath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** The data plane's budget: cached table definitions checked in the statement, and index-served pages. */

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform.stop();
});

describe('a table definition cached per container', () => {
  it('sees an added field on the next read', async () => {
    await createTable(tenant.owner, tenant.app.slug, 'drift', { fields: [{ name: 'a', type: 'string' }] });
    const [created] = [await insert(tenant.owner, tenant.app.slug, 'drift', { a: 'x' })];
    const path = dataPath(tenant.app.slug, 'drift');
    expect((await tenant.owner.get(path)).body.data[0]).not.toHaveProperty('b');
    const added = await tenant.owner.post(`${tablePath(tenant.app.slug, 'drift')}fields/`, {
      name: 'b',
      type: 'string',
    });
    expect(added.status).toBe(201);
    expect((await tenant.owner.get(path)).body.data[0]).toMatchObject({ a: 'x', b: null });
    expect((await tenant.owner.get(`${path}${created.id}/`)).body.data).toMatchObject({ a: 'x', b: null });
  });

  it('sees a dropped field on the next read instead of failing on the missing column', async () => {
    const path = dataPath(tenant.app.slug, 'drift');
    await tenant.owner.get(path);
    const dropped = await tenant.owner.delete(`${tablePath(tenant.app.slug, 'drift')}fields/a/`);
    expect(dropped.status).toBe(200);
    const list = await tenant.owner.get(path);
    expect(list.status).toBe(200);
    expect(list.body.data[0]).not.toHaveProperty('a');
  });

  it('creates records by the current definition after a field was added', async () => {
    const path = dataPath(tenant.app.slug, 'drift');
    await tenant.owner.get(path);
    const added = await tenant.owner.post(`${tablePath(tenant.app.slug, 'drift')}fields/`, {
      name: 'c',
      type: 'string',
      default: 'zed',
    });
    expect(added.status).toBe(201);
    const withDefault = await tenant.owner.post(path, {});
    expect(withDefault.status).toBe(201);
    expect(withDefault.body.data).toMatchObject({ c: 'zed' });
    const named = await tenant.owner.post(path, { c: 'given' });
    expect(named.status).toBe(201);
    expect(named.body.data).toMatchObject({ c: 'given' });
  });

  it('answers 404 for a table dropped since it was cached', async () => {
    const path = dataPath(tenant.app.slug, 'drift');
    await tenant.owner.get(path);
    expect((await tenant.owner.delete(tablePath(tenant.app.slug, 'drift'))).status).toBe(204);
    const response = await tenant.owner.get(path);
    expect(response.status).toBe(404);
  });
});

describe('the page query', () => {
  it('walks the (created_at, key) index for a filtered page in the default order instead of sorting', async () => {
    await createTable(tenant.owner, tenant.app.slug, 'items', {
      fields: [
        { name: 'title', type: 'string' },
        { name: 'category', type: 'string' },
        { name: 'created_at', type: 'datetime' },
      ],
    });
    const sql = platform.deps.sql();
    const schema = siteSchemaName(tenant.site.slug);
    const [entry] = await sql`SELECT physical_name FROM ${sql(schema)}.catalog WHERE name = 'items'`;
    const physical = entry?.physical_name as string;
    await sql`INSERT INTO ${sql(schema)}.${sql(physical)} (title, category, created_at)
      SELECT 'item ' || g, 'c' || (g % 10), now() - g * interval '1 second' FROM generate_series(1, 20000) AS g`;
    await sql`ANALYZE ${sql(schema)}.${sql(physical)}`;
    const scope = {
      schema,
      site: tenant.site.slug,
      siteIdentity: (tenant.site as { created_at?: string }).created_at ?? '',
      app: { description: '', site: '', created_at: '', ...tenant.app },
    };
    const table = await openTable(sql, scope, 'items');
    const where = whereClause(sql, table, {
      conditions: [{ field: table.fields.get('category') as FieldDef, operator: 'eq', value: 'c3' }],
      visibility: 'live',
    });
    const plan = (
      await sql`EXPLAIN ${pageStatement(sql, table, where, { sort: [] }, { offset: 25, limit: 25 })}`
    )
      .map((row) => row['QUERY PLAN'] as string)
      .join('\n');
    expect(plan).toContain(`${physical}_created_at_id_ord`);
    expect(plan).not.toMatch(/\bSort\b/);
  });
});

describe('the query language on indexes', () => {
  it('serves an indexed filter with an indexed sort from the index, without sorting', async () => {
    await createTable(tenant.owner, tenant.app.slug, 'scores', {
      fields: [
        { name: 'player', type: 'string' },
        { name: 'points', type: 'integer' },
      ],
      indexes: [{ fields: ['points'] }],
    });
    const sql = platform.deps.sql();
    const schema = siteSchemaName(tenant.site.slug);
    const [entry] = await sql`SELECT physical_name FROM ${sql(schema)}.catalog WHERE name = 'scores'`;
    const physical = entry?.physical_name as string;
    await sql`INSERT INTO ${sql(schema)}.${sql(physical)} (player, points)
      SELECT 'p' || (g % 100), g FROM generate_series(1, 20000) AS g`;
    await sql`ANALYZE ${sql(schema)}.${sql(physical)}`;
    const scope = {
      schema,
      site: tenant.site.slug,
      siteIdentity: (tenant.site as { created_at?: string }).created_at ?? '',
      app: { description: '', site: '', created_at: '', ...tenant.app },
    };
    const table = await openTable(sql, scope, 'scores');
    const explain = async (query: string) => {
      const plan = listPlanOf(table, new URLSearchParams(query), 'live');
      const where = whereClause(sql, table, plan.query);
      const rows = await sql`EXPLAIN ${pageStatement(sql, table, where, plan, { offset: 25, limit: 25 })}`;
      return rows.map((row) => row['QUERY PLAN'] as string).join('\n');
    };
    const sorted = await explain('points__gt=100&player_ne=p7&_sort=points&_order=desc');
    expect(sorted).toMatch(/Index Scan Backward/);
    // The key breaks ties: at most an incremental sort within equal points, never a sort of every match.
    expect(sorted).not.toMatch(/(?<!Incremental )Sort {2}\(|Seq Scan/);
    const range = await explain('points_between=500,520&ordering=points');
    expect(range).toMatch(/Index Scan|Index Cond/);
    expect(range).not.toMatch(/Seq Scan/);
  });
});

describe('creating one record in a table with a foreign key', () => {
  /** The platform's data plane, counting the transactions a write opens. */
  function countingTransactions() {
    const sql = platform.deps.sql();
    const counted = { begins: 0 };
    const proxy = new Proxy(sql, {
      get(target, property, receiver) {
        if (property === 'begin') counted.begins++;
        return Reflect.get(target, property, receiver);
      },
    });
    return { sql: proxy, counted };
  }

  it('is one statement when the reference exists, and a 400 naming the field when it does not', async () => {
    await createTable(tenant.owner, tenant.app.slug, 'makers', {
      fields: [{ name: 'name', type: 'string' }],
    });
    await createTable(tenant.owner, tenant.app.slug, 'gadgets', {
      fields: [
        { name: 'title', type: 'string' },
        { name: 'maker_id', type: 'string', format: 'uuid' },
      ],
      foreignKeys: [{ fields: ['maker_id'], reference: { resource: 'makers', fields: ['id'] } }],
    });
    const maker = await insert(tenant.owner, tenant.app.slug, 'makers', { name: 'Acme' });
    const scope = {
      schema: siteSchemaName(tenant.site.slug),
      site: tenant.site.slug,
      siteIdentity: (tenant.site as { created_at?: string }).created_at ?? '',
      app: { description: '', site: '', created_at: '', ...tenant.app },
    };
    const { sql, counted } = countingTransactions();
    // The first write reads the catalog; the next ones use the definition this container knows.
    await createRecords(sql, scope, 'gadgets', { title: 'first', maker_id: maker.id });
    counted.begins = 0;
    const { records } = await createRecords(sql, scope, 'gadgets', { title: 'second', maker_id: maker.id });
    expect(records[0]).toMatchObject({ title: 'second', maker_id: maker.id });
    expect(counted.begins).toBe(0);

    const refused = await tenant.owner.post(dataPath(tenant.app.slug, 'gadgets'), {
      title: 'x',
      maker_id: 999999,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('maker_id');
    const listed = await tenant.owner.get(`${dataPath(tenant.app.slug, 'gadgets')}?title=x`);
    expect(listed.body.total).toBe(0);
  });
});
