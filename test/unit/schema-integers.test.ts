import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/groups';
import type { JsonSchema } from '../../shared/api/route';

/**
 * Every integer a client sends has a maximum in its route's schema (docs/security.md, "Numbers"): an integer above
 * 2^53 is not exact in JavaScript and the DynamoDB marshaller refuses it, so without a maximum it became a 500.
 * Walks every body, query and path schema of the route table.
 */
const maxSafe = Number.MAX_SAFE_INTEGER;

function isInteger(schema: JsonSchema): boolean {
  const type = schema.type;
  return type === 'integer' || (Array.isArray(type) && type.includes('integer'));
}

/** Each integer schema without a maximum, or with one beyond the safe range, by its place in the schema. */
function unbounded(schema: unknown, at: string, found: string[]): string[] {
  if (Array.isArray(schema)) for (const [i, item] of schema.entries()) unbounded(item, `${at}[${i}]`, found);
  else if (schema && typeof schema === 'object') {
    const object = schema as JsonSchema;
    if (isInteger(object)) {
      const maximum = object.maximum ?? object.exclusiveMaximum;
      const minimum = object.minimum ?? object.exclusiveMinimum;
      if (typeof maximum !== 'number' || maximum > maxSafe) found.push(`${at}: no maximum within 2^53 - 1`);
      if (typeof minimum !== 'number' || minimum < -maxSafe)
        found.push(`${at}: no minimum within -(2^53 - 1)`);
    }
    for (const [key, value] of Object.entries(object)) unbounded(value, `${at}.${key}`, found);
  }
  return found;
}

describe('every integer of every route schema is bounded within the safe integer range', () => {
  it.each(routes.map((route) => [route.operationId, route] as const))('%s', (_, route) => {
    const found = (['body', 'query', 'params'] as const).flatMap((part) => unbounded(route[part], part, []));
    expect(found).toEqual([]);
  });
});
