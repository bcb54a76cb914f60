import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/groups';
import {
  assertPathParamsBounded,
  overlongPathParam,
  pathParamBounds,
  pathParamNames,
} from '../../shared/api/path-params';
import type { JsonSchema } from '../../shared/api/route';

describe('every path parameter of the route table has a bound (shared/api/path-params.ts)', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_, route) => {
    expect(() => assertPathParamsBounded(route)).not.toThrow();
    // A schema a route declares for a parameter never allows more than the bound.
    for (const name of pathParamNames(route.path)) {
      const declared = (route.params?.properties as Record<string, JsonSchema> | undefined)?.[name];
      const limit = pathParamBounds[name];
      if (declared && typeof declared.maxLength === 'number')
        expect(declared.maxLength).toBeLessThanOrEqual(limit?.maxLength as number);
    }
  });

  it('a route naming a parameter without a bound does not start', () => {
    expect(() => assertPathParamsBounded({ operationId: 'x', path: '/api/things/{thing}/' })).toThrow(
      /\{thing\} has no bound/,
    );
  });
});

describe('overlongPathParam', () => {
  it('counts characters as code points, and bytes of UTF-8', () => {
    expect(overlongPathParam({ app_slug: 'a'.repeat(100) })).toBeUndefined();
    expect(overlongPathParam({ app_slug: 'a'.repeat(101) })).toEqual({
      name: 'app_slug',
      message: 'Ensure this field has no more than 100 characters.',
    });
    // 100 emoji are 100 characters (200 UTF-16 units) and 400 bytes: within both.
    expect(overlongPathParam({ app_slug: '😀'.repeat(100) })).toBeUndefined();
    // A role's slug: 200 characters of four bytes are within 300 characters, over 512 bytes.
    expect(overlongPathParam({ slug: '😀'.repeat(200) })).toEqual({
      name: 'slug',
      message: 'Ensure this field has no more than 512 bytes of UTF-8.',
    });
    expect(overlongPathParam({ username: '😀'.repeat(254) })).toBeUndefined();
  });
});
