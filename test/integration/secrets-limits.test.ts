import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { schemaLimits } from '../../shared/secrets/schema-rules';
import { valueLimits } from '../../shared/secrets/values';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant } from '../support/tenant';

/** The bounds on secret type schemas and secret values (docs/secrets.md, "Schemas" and "Limits"). */
let platform: TestPlatform;
let owner: ApiClient;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});
beforeEach(async () => {
  owner = (await createTenant(platform)).owner;
});

const newType = (schema: unknown, name = 'Limited', sensitivity_level = 'private') =>
  owner.post('/api/secret-types/', { name, sensitivity_level, schema });

/** A 400 in the secrets envelope naming `schema`, whose message contains `words`. */
async function expectSchemaRefused(schema: unknown, words: string) {
  for (const response of [await newType(schema), await owner.put('/api/secret-types/plain/', { schema })]) {
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Schema validation failed');
    expect(Object.keys(response.body.detail)).toEqual(['schema']);
    expect(response.body.detail.schema[0]).toContain(words);
  }
}

/** The largest schema the rules allow: every subschema, nearly every byte. */
function largestSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  // The root and `additionalProperties` are two of the subschemas.
  for (let index = 0; index < schemaLimits.subschemas - 2; index++)
    properties[`field_${index}`] = {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^[a-z0-9_-]+$',
      enum: ['alpha', 'beta', 'gamma', `value-${index}`],
      description: '',
    };
  const schema = { type: 'object', properties, required: ['field_0'], additionalProperties: false };
  const room = schemaLimits.bytes - Buffer.byteLength(JSON.stringify(schema));
  const fill = Math.floor(room / (schemaLimits.subschemas - 2));
  for (const field of Object.values(properties))
    (field as { description: string }).description = 'd'.repeat(fill);
  return schema;
}

describe('secret type schemas', () => {
  beforeEach(async () => {
    expect((await newType({ type: 'object' }, 'Plain')).status).toBe(201);
  });

  it(`refuses a schema over ${schemaLimits.bytes} bytes of JSON`, async () => {
    await expectSchemaRefused(
      { type: 'object', description: 'x'.repeat(schemaLimits.bytes) },
      `at most ${schemaLimits.bytes}`,
    );
  });

  it(`refuses a schema nested more than ${schemaLimits.depth} levels deep`, async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < schemaLimits.depth / 2; level++)
      schema = { type: 'object', properties: { a: schema } };
    await expectSchemaRefused(schema, `${schemaLimits.depth} levels`);
  });

  it(`refuses more than ${schemaLimits.subschemas} subschemas, each $ref counted as a copy of its target`, async () => {
    const flat = { anyOf: Array.from({ length: schemaLimits.subschemas }, (_, index) => ({ const: index })) };
    await expectSchemaRefused(flat, `${schemaLimits.subschemas} subschemas`);
    // Twenty definitions, each referring twice to the one before: about a million subschemas once expanded.
    const definitions: Record<string, unknown> = { d0: { type: 'string' } };
    for (let index = 1; index < 20; index++)
      definitions[`d${index}`] = {
        allOf: [{ $ref: `#/definitions/d${index - 1}` }, { $ref: `#/definitions/d${index - 1}` }],
      };
    await expectSchemaRefused(
      { definitions, $ref: '#/definitions/d19' },
      `${schemaLimits.subschemas} subschemas`,
    );
  });

  it('refuses recursive schemas: {"$ref": "#"} and a cycle through definitions', async () => {
    await expectSchemaRefused({ type: 'object', properties: { next: { $ref: '#' } } }, 'recursive');
    await expectSchemaRefused({ $ref: '#' }, 'recursive');
    await expectSchemaRefused(
      {
        definitions: {
          a: { properties: { b: { $ref: '#/definitions/b' } } },
          b: { items: { $ref: '#/definitions/a' } },
        },
        $ref: '#/definitions/a',
      },
      'recursive',
    );
  });

  it('refuses a $ref that is not a JSON pointer into the schema, or points at nothing', async () => {
    await expectSchemaRefused({ $ref: 'other.json#/definitions/a' }, '$ref');
    await expectSchemaRefused({ $ref: 'http://json-schema.org/draft-07/schema#' }, '$ref');
    await expectSchemaRefused({ $ref: '#/definitions/missing' }, 'does not point at a schema');
  });

  it(`allows uniqueItems only beside maxItems of at most ${schemaLimits.uniqueItemsMaxItems}`, async () => {
    await expectSchemaRefused(
      { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } },
      'maxItems',
    );
    await expectSchemaRefused(
      { type: 'object', properties: { list: { type: 'array', uniqueItems: true, maxItems: 15_000 } } },
      'maxItems',
    );
    const bounded = {
      type: 'object',
      properties: { list: { type: 'array', uniqueItems: true, maxItems: schemaLimits.uniqueItemsMaxItems } },
    };
    expect((await newType(bounded, 'Unique')).status).toBe(201);
    const list = Array.from({ length: schemaLimits.uniqueItemsMaxItems }, (_, index) => [index]);
    const stored = await owner.post('/api/secrets/', { secret_type: 'unique', key: 'u', value: { list } });
    expect(stored.status).toBe(201);
    const repeated = await owner.post('/api/secrets/', {
      secret_type: 'unique',
      key: 'r',
      value: { list: [[1], [1]] },
    });
    expect(repeated.status).toBe(400);
    expect(Object.keys(repeated.body.detail)).toEqual(['list']);
  });

  it('keeps local references that form no cycle', async () => {
    const schema = {
      definitions: { token: { type: 'string', minLength: 8 } },
      type: 'object',
      properties: { live: { $ref: '#/definitions/token' }, test: { $ref: '#/definitions/token' } },
      required: ['live'],
    };
    expect((await newType(schema, 'Tokens')).status).toBe(201);
    expect(
      (await owner.post('/api/secrets/', { secret_type: 'tokens', key: 't', value: { live: 'x' } })).status,
    ).toBe(400);
    expect(
      (await owner.post('/api/secrets/', { secret_type: 'tokens', key: 't', value: { live: 'long-enough' } }))
        .status,
    ).toBe(201);
  });

  it('compiles the largest allowed schema, and a value validates against it', async () => {
    const schema = largestSchema();
    expect(Buffer.byteLength(JSON.stringify(schema))).toBeLessThanOrEqual(schemaLimits.bytes);
    expect(Buffer.byteLength(JSON.stringify(schema))).toBeGreaterThan(schemaLimits.bytes - 1024);
    expect((await newType(schema, 'Largest')).status).toBe(201);
    expect((await owner.put('/api/secret-types/plain/', { schema })).status).toBe(200);
    const value = { field_0: 'alpha', field_1: 'value-1' };
    expect((await owner.post('/api/secrets/', { secret_type: 'largest', key: 'l', value })).status).toBe(201);
    const wrong = await owner.post('/api/secrets/', {
      secret_type: 'largest',
      key: 'w',
      value: { field_0: 'x' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'Schema validation failed',
      detail: { field_0: [expect.any(String)] },
    });
  });
});

describe('secret values', () => {
  beforeEach(async () => {
    expect((await newType({ type: 'object' }, 'Any_Private')).status).toBe(201);
    expect((await newType({ type: 'object' }, 'Any_Public', 'public')).status).toBe(201);
  });

  it(`refuses a value over ${valueLimits.bytes} bytes of JSON with 400 naming value (a 300 KB one answered 500)`, async () => {
    for (const secret_type of ['any-private', 'any-public']) {
      const big = await owner.post('/api/secrets/', {
        secret_type,
        key: 'big',
        value: { blob: 'x'.repeat(300_000) },
      });
      expect(big.status).toBe(400);
      expect(big.body.error).toBe('Schema validation failed');
      expect(Object.keys(big.body.detail)).toEqual(['value']);
      expect(big.body.detail.value[0]).toContain(`${valueLimits.bytes}`);
    }
    const small = await owner.post('/api/secrets/', {
      secret_type: 'any-private',
      key: 'k',
      value: { a: 1 },
    });
    expect(small.status).toBe(201);
    const replaced = await owner.put('/api/secrets/k/', {
      secret_type: 'any-private',
      value: { blob: 'x'.repeat(valueLimits.bytes) },
    });
    expect(replaced.status).toBe(400);
    expect(Object.keys(replaced.body.detail)).toEqual(['value']);
  });

  it('stores a value just under the limit, private and public', async () => {
    const blob = 'x'.repeat(valueLimits.bytes - 100);
    for (const secret_type of ['any-private', 'any-public']) {
      const stored = await owner.post('/api/secrets/', { secret_type, key: secret_type, value: { blob } });
      expect(stored.status).toBe(201);
      const read = await owner.get(`/api/secrets/${secret_type}/`);
      expect(read.body.value.blob.length).toBe(blob.length);
    }
  });

  it(`refuses a value of more than ${valueLimits.nodes} JSON values with 400 naming value`, async () => {
    const response = await owner.post('/api/secrets/', {
      secret_type: 'any-private',
      key: 'many',
      value: { list: Array.from({ length: valueLimits.nodes }, () => 0) },
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.detail)).toEqual(['value']);
  });
});
