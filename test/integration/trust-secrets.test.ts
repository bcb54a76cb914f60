import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: a secret type's schema is the tenant's own input, so it may never reach,
 * show or block another tenant's schema (docs/security.md, "Secret types and values").
 */
let platform: TestPlatform;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
  [a, b] = await Promise.all([createTenant(platform), createTenant(platform)]);
});
afterAll(async () => {
  await platform.stop();
});

const sharedId = 'https://schemas.example.com/plan.json';
/** Tenant A's enum values: none may ever appear in an answer to tenant B. */
const planOfA = { $id: sharedId, type: 'string', enum: ['a-secret-plan-gold', 'a-secret-plan-platinum'] };

describe('cross-tenant trust suite: secret type schemas', () => {
  it("never lets tenant B's schema resolve tenant A's $id, nor shows A's enum values to B", async () => {
    // Whatever tenant A manages to store, tenant B must not reach it.
    await a.owner.post('/api/secret-types/', {
      name: 'Plan',
      sensitivity_level: 'private',
      schema: { type: 'object', properties: { plan: planOfA } },
    });
    await a.owner.post('/api/secrets/', { secret_type: 'plan', key: 'p', value: { plan: 'x' } });

    const refusing = await b.owner.post('/api/secret-types/', {
      name: 'Borrowed',
      sensitivity_level: 'private',
      schema: { type: 'object', properties: { plan: { $ref: sharedId } } },
    });
    const answers = [refusing];
    if (refusing.status === 201)
      answers.push(
        await b.owner.post('/api/secrets/', { secret_type: 'borrowed', key: 'p', value: { plan: 'nope' } }),
      );
    for (const answer of answers) expect(answer.text).not.toContain('a-secret-plan');
    expect(refusing.status).toBe(400);
    expect(refusing.body.error).toBe('Schema validation failed');
    expect(Object.keys(refusing.body.detail)).toEqual(['schema']);
    expect(refusing.body.detail.schema[0]).toContain('$ref');
  });

  it('refuses $id in any schema (400 naming schema), so no tenant can claim an identifier another one uses', async () => {
    for (const tenant of [a, b]) {
      const response = await tenant.owner.post('/api/secret-types/', {
        name: 'With_Id',
        sensitivity_level: 'private',
        schema: { $id: 'https://schemas.example.com/mine.json', type: 'object' },
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.detail)).toEqual(['schema']);
      expect(response.body.detail.schema[0]).toContain('$id');
    }
  });

  it('gives two tenants the same schema text without either seeing the other (validators are per site and type)', async () => {
    const schemaA = { type: 'object', properties: { level: { enum: ['a-only-1', 'a-only-2'] } } };
    const schemaB = { type: 'object', properties: { level: { enum: ['b-only-1'] } } };
    await a.owner.post('/api/secret-types/', {
      name: 'Level',
      sensitivity_level: 'private',
      schema: schemaA,
    });
    await b.owner.post('/api/secret-types/', {
      name: 'Level',
      sensitivity_level: 'private',
      schema: schemaB,
    });
    const wrongForB = await b.owner.post('/api/secrets/', {
      secret_type: 'level',
      key: 'l',
      value: { level: 'a-only-1' },
    });
    expect(wrongForB.status).toBe(400);
    expect(wrongForB.text).not.toContain('a-only-2');
    const rightForA = await a.owner.post('/api/secrets/', {
      secret_type: 'level',
      key: 'l',
      value: { level: 'a-only-1' },
    });
    expect(rightForA.status).toBe(201);
  });
});
