import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteSchemaName } from '../../shared/data/schema/names';
import { createTable, dataPath, insert, tablesPath } from '../support/data';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * Cross-tenant trust suite: table schemas. A table schema is written by its tenant (names, foreign keys,
 * relationship types, patterns); none of it may name, read or change another tenant's tables. Each rule below is
 * one way a schema could try to reach out of its site or app.
 */

let platform: TestPlatform;
let victim: Tenant;
let attacker: Tenant;
let secretId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  victim = await createTenant(platform);
  attacker = await createTenant(platform);
  await createTable(victim.owner, victim.app.slug, 'payroll', {
    fields: [{ name: 'salary', type: 'integer' }],
  });
  [secretId] = [(await insert(victim.owner, victim.app.slug, 'payroll', { salary: 99_000 })).id];
});
afterAll(async () => {
  await platform.stop();
});

/** The attacker's attempt to create a table; the answer. */
const attempt = (name: string, schema: Record<string, unknown>) =>
  attacker.owner.post(tablesPath(attacker.app.slug), { name, schema });

describe('table schemas (cross-tenant trust suite)', () => {
  it("cannot reference another site's table from a foreign key, by name or schema-qualified name", async () => {
    for (const resource of [
      'payroll',
      `${siteSchemaName(victim.site.slug)}.payroll`,
      `"${siteSchemaName(victim.site.slug)}"."payroll"`,
    ]) {
      const response = await attempt('claims', {
        fields: [{ name: 'payroll_id', type: 'string', format: 'uuid' }],
        foreignKeys: [{ fields: 'payroll_id', reference: { resource, fields: 'id' } }],
      });
      expect(response.status, resource).toBe(400);
      expect(JSON.stringify(response.body), resource).not.toContain('99000');
    }
  });

  it("cannot name a table or field so as to reach another site's schema", async () => {
    for (const name of [
      `${siteSchemaName(victim.site.slug)}.payroll`,
      'payroll"; DROP TABLE x; --',
      '../payroll',
    ]) {
      const response = await attempt(name, { fields: [{ name: 'x', type: 'string' }] });
      expect(response.status, name).toBe(400);
    }
    const field = await attempt('fields', {
      fields: [{ name: `${siteSchemaName(victim.site.slug)}.payroll.salary`, type: 'integer' }],
    });
    expect(field.status).toBe(400);
  });

  it("sees only its own rows in a table named like another site's, and never the other's ids", async () => {
    await createTable(attacker.owner, attacker.app.slug, 'payroll', {
      fields: [{ name: 'salary', type: 'integer' }],
    });
    const list = await attacker.owner.get(dataPath(attacker.app.slug, 'payroll'));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const read = await attacker.owner.get(`${dataPath(attacker.app.slug, 'payroll')}${secretId}/`);
    expect(read.status).toBe(404);
    const update = await attacker.owner.patch(`${dataPath(attacker.app.slug, 'payroll')}${secretId}/`, {
      salary: 1,
    });
    expect(update.status).toBe(404);
  });

  it("cannot populate, filter or traverse into another site's records", async () => {
    const populated = await attacker.owner.get(
      `${dataPath(attacker.app.slug, 'payroll')}?populate=${siteSchemaName(victim.site.slug)}.payroll`,
    );
    expect(populated.status).toBe(400);
    const graph = await attacker.owner.get(
      `${dataPath(attacker.app.slug, 'payroll')}${secretId}/?include=descendants&depth=2`,
    );
    // A table without relationship types refuses the traversal (400) before any record is looked up.
    expect(graph.status).toBe(400);
    expect(JSON.stringify(graph.body)).not.toContain('99000');
    const record = await attacker.owner.get(
      `${dataPath(attacker.app.slug, 'payroll')}${secretId}/?populate=*`,
    );
    expect(record.status).toBe(404);
    const unchanged = await victim.owner.get(`${dataPath(victim.app.slug, 'payroll')}${secretId}/`);
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.data.salary).toBe(99_000);
  });
});
