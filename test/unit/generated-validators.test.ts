import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validators as accounts } from '../../functions/accounts/validators.generated';
import { validators as auth } from '../../functions/auth/validators.generated';
import { validators as data } from '../../functions/data/validators.generated';
import { validators as events } from '../../functions/events/validators.generated';
import { validators as invitations } from '../../functions/invitations/validators.generated';
import { validators as meta } from '../../functions/meta/validators.generated';
import { validators as roles } from '../../functions/roles/validators.generated';
import { validators as secrets } from '../../functions/secrets/validators.generated';
import { validatorsPath, validatorsSource } from '../../infra/validators';
import type { GroupName, JsonSchema, RouteDef } from '../../shared/http/route';
import { groups, routesOf } from '../../shared/http/routes';
import { compileSchema } from '../../shared/http/schema-compiler';
import {
  coerces,
  type GeneratedValidators,
  type SchemaPart,
  type SchemaValidator,
  useGeneratedValidators,
  validatorName,
} from '../../shared/http/validation';

const generated: Record<GroupName, GeneratedValidators> = {
  auth,
  accounts,
  roles,
  secrets,
  data,
  events,
  meta,
  invitations,
};
const parts: readonly SchemaPart[] = ['body', 'query', 'params'];

/** Every schema of the route table, with its part and the validator generated for it. */
function schemas(): { route: RouteDef; part: SchemaPart; schema: JsonSchema; validator: SchemaValidator }[] {
  return (Object.keys(groups) as GroupName[])
    .flatMap((group) => routesOf(group))
    .flatMap((route) =>
      parts.flatMap((part) => {
        const schema = route[part];
        const validator = generated[route.group][validatorName(route.operationId, part)];
        return schema && validator ? [{ route, part, schema, validator }] : [];
      }),
    );
}

/** What a validator says of a value: its verdict, its errors, and the value as it left it (defaults, coercion). */
function verdict(validator: SchemaValidator, value: unknown) {
  const copy = structuredClone(value);
  const valid = validator(copy);
  const errors = (validator.errors ?? []).map(({ instancePath, keyword, params }) => ({
    instancePath,
    keyword,
    params,
  }));
  return { valid, errors: valid ? [] : errors, value: copy };
}

/** Values shaped like the schema's objects (its own property names), with JSON or text values inside. */
function inputs(schema: JsonSchema, text: boolean) {
  const names = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const leaf = text
    ? fc.oneof(fc.string(), fc.constantFrom('1', '-2', '0.5', 'true', 'null', ''), fc.array(fc.string()))
    : fc.jsonValue({ maxDepth: 3 });
  const key = names.length > 0 ? fc.oneof(fc.constantFrom(...names), fc.string()) : fc.string();
  return fc.oneof(fc.dictionary(key, leaf, { maxKeys: names.length + 2 }), leaf);
}

describe('generated route validators', () => {
  it.each(Object.keys(groups))(
    'of the %s group are those of its current route schemas (run npm run validators)',
    async (group) => {
      const committed = readFileSync(validatorsPath(group), 'utf8');
      expect(committed).toBe(await validatorsSource(group, routesOf(group as GroupName)));
    },
  );

  it('cover every schema of every route of each group', () => {
    for (const group of Object.keys(groups) as GroupName[]) {
      expect(() => useGeneratedValidators(routesOf(group), generated[group])).not.toThrow();
    }
  });

  it('refuse to start a group whose validators miss a route schema', () => {
    const route = routesOf('auth').find((candidate) => candidate.body) as RouteDef;
    expect(() => useGeneratedValidators([route], {})).toThrow(/No generated validator/);
  });

  it('validate, coerce and fill in defaults exactly as the schemas compiled at start', () => {
    for (const { route, part, schema, validator } of schemas()) {
      const compiled = compileSchema(schema, coerces(part));
      fc.assert(
        fc.property(inputs(schema, coerces(part)), (value) => {
          expect(verdict(validator, value), `${route.operationId} ${part}`).toEqual(verdict(compiled, value));
        }),
        { numRuns: 60 },
      );
    }
  });
});
