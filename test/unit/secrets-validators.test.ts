import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { schemaLimits, schemaProblem } from '../../shared/secrets/schema-rules';
import { maxCompiledValidators, ValidatorCache } from '../../shared/secrets/values';

const validator = (name: string) => Object.assign(() => true, { label: name }) as unknown as ValidateFunction;

describe('the compiled-validator cache', () => {
  it(`holds at most its capacity (${maxCompiledValidators} per container), least recently used out first`, () => {
    const cache = new ValidatorCache(maxCompiledValidators);
    for (let index = 0; index < maxCompiledValidators * 5; index++)
      cache.set(`site-${index}/type`, 'v1', validator(`${index}`));
    expect(cache.size).toBe(maxCompiledValidators);
    expect(cache.get('site-0/type', 'v1')).toBeUndefined();
    const newest = `site-${maxCompiledValidators * 5 - 1}/type`;
    expect(cache.get(newest, 'v1')).toBeDefined();
  });

  it('keeps the one just used when full', () => {
    const cache = new ValidatorCache(3);
    for (const id of ['a', 'b', 'c']) cache.set(id, 'v1', validator(id));
    expect(cache.get('a', 'v1')).toBeDefined();
    cache.set('d', 'v1', validator('d'));
    expect(cache.size).toBe(3);
    expect(cache.get('b', 'v1')).toBeUndefined();
    expect(cache.get('a', 'v1')).toBeDefined();
  });

  it("keeps one entry per site and type: a new version of the type's schema replaces the old one", () => {
    const cache = new ValidatorCache(10);
    for (let version = 0; version < 40; version++) {
      expect(cache.get('site/type', `v${version}`)).toBeUndefined();
      cache.set('site/type', `v${version}`, validator(`${version}`));
    }
    expect(cache.size).toBe(1);
    expect(cache.get('site/type', 'v0')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('schemaProblem', () => {
  it('accepts ordinary schemas and local references without cycles', () => {
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'string' } } })).toBeUndefined();
    expect(
      schemaProblem({ $defs: { t: { type: 'string' } }, properties: { a: { $ref: '#/$defs/t' }, b: true } }),
    ).toBeUndefined();
    expect(
      schemaProblem({ properties: { 'a/b': { type: 'string' }, c: { $ref: '#/properties/a~1b' } } }),
    ).toBeUndefined();
  });

  it('refuses $id, remote references, cycles, expansion past the subschema bound and unbounded uniqueItems', () => {
    expect(schemaProblem({ properties: { a: { $id: 'x' } } })).toContain('$id');
    expect(schemaProblem({ $ref: 'x.json' })).toContain('$ref');
    expect(schemaProblem({ $ref: '#' })).toContain('recursive');
    expect(schemaProblem({ $defs: { a: { not: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' })).toContain(
      'recursive',
    );
    const $defs: Record<string, unknown> = { d0: {} };
    for (let index = 1; index < 10; index++)
      $defs[`d${index}`] = { anyOf: [{ $ref: `#/$defs/d${index - 1}` }, { $ref: `#/$defs/d${index - 1}` }] };
    expect(schemaProblem({ $defs })).toContain(`${schemaLimits.subschemas} subschemas`);
    expect(schemaProblem({ uniqueItems: true, maxItems: schemaLimits.uniqueItemsMaxItems + 1 })).toContain(
      'maxItems',
    );
  });

  it('counts a property named like a keyword as a property, not as a keyword', () => {
    expect(
      schemaProblem({ properties: { $id: { type: 'string' }, $ref: { type: 'string' } } }),
    ).toBeUndefined();
  });
});
