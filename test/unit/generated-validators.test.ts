import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { validatorLoaders as accounts } from '../../functions/accounts/validators/index.generated';
import { validatorLoaders as auth } from '../../functions/auth/validators/index.generated';
import { validatorLoaders as data } from '../../functions/data/validators/index.generated';
import { validatorLoaders as events } from '../../functions/events/validators/index.generated';
import { groups, routesOf } from '../../functions/groups';
import { validatorLoaders as invitations } from '../../functions/invitations/validators/index.generated';
import { validatorLoaders as meta } from '../../functions/meta/validators/index.generated';
import { validatorLoaders as pages } from '../../functions/pages/validators/index.generated';
import { validatorLoaders as roles } from '../../functions/roles/validators/index.generated';
import { validatorLoaders as secrets } from '../../functions/secrets/validators/index.generated';
import { validatorFiles, validatorsDirectory } from '../../infra/validators';
import type { GroupName, JsonSchema, RouteDef } from '../../shared/api/route';
import { ucs2length } from '../../shared/api/validator-runtime';
import { compileSchema } from '../../shared/http/schema-compiler';
import {
  coerces,
  type RouteValidatorLoaders,
  type RouteValidators,
  type SchemaPart,
  type SchemaValidator,
  schemaParts,
  useGeneratedValidators,
  validatorsLoaded,
} from '../../shared/http/validation';

/**
 * Property tests run a fixed number of cases (numRuns), each limited far above what it takes on a quiet machine
 * (measured as CPU time: at most 3 s), so a busy machine slows them but never fails them.
 */
const propertyTimeout = { timeout: 60_000 };

const loaders: Record<GroupName, RouteValidatorLoaders> = {
  auth,
  accounts,
  roles,
  secrets,
  data,
  events,
  meta,
  invitations,
  pages,
};

const allRoutes = () => (Object.keys(groups) as GroupName[]).flatMap((group) => routesOf(group));

/** Each route's generated validators, loaded as a Lambda loads them on the route's first request. */
const generated = new Map<RouteDef, RouteValidators>();
beforeAll(async () => {
  for (const route of allRoutes()) {
    const load = loaders[route.group][route.operationId];
    if (load) generated.set(route, await load());
  }
});

/** Every schema of the route table, with its part and the validator generated for it. */
function schemas(): { route: RouteDef; part: SchemaPart; schema: JsonSchema; validator: SchemaValidator }[] {
  return allRoutes().flatMap((route) =>
    schemaParts(route).flatMap((part) => {
      const validator = generated.get(route)?.[part];
      return validator ? [{ route, part, schema: route[part] as JsonSchema, validator }] : [];
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
      const directory = validatorsDirectory(group);
      const expected = await validatorFiles(group, routesOf(group as GroupName));
      expect(readdirSync(directory).sort()).toEqual([...expected.keys()].sort());
      for (const [file, source] of expected)
        expect(readFileSync(join(directory, file), 'utf8'), file).toBe(source);
    },
  );

  it('cover every schema of every route of each group', () => {
    for (const route of allRoutes()) {
      for (const part of schemaParts(route))
        expect(generated.get(route)?.[part], `${route.operationId} ${part}`).toBeTypeOf('function');
    }
    expect(schemas().length).toBeGreaterThan(100);
  });

  it('refuse to start a group whose validators miss a route', () => {
    const route = routesOf('auth').find((candidate) => candidate.body) as RouteDef;
    expect(() => useGeneratedValidators([route], {})).toThrow(/No generated validators/);
  });

  it("load a route's module on its first request only, and refuse one that misses a schema", async () => {
    // A copy with schema objects of its own: validators are kept per schema object, and the stand-in registered
    // below (accepting anything) must never become the real route's (later test files share this process).
    const original = routesOf('auth').find((candidate) => candidate.body) as RouteDef;
    const route = { ...original, body: structuredClone(original.body) };
    let loads = 0;
    useGeneratedValidators([route], {
      [route.operationId]: async () => {
        loads++;
        return {};
      },
    });
    await expect(validatorsLoaded(route)).rejects.toThrow(/No generated validator for .* body/);
    const valid = { body: () => true };
    useGeneratedValidators([route], {
      [route.operationId]: async () => {
        loads++;
        return valid;
      },
    });
    await Promise.all([validatorsLoaded(route), validatorsLoaded(route)]);
    expect(loads).toBe(2);
    expect(validatorsLoaded(route)).toBeUndefined();
  });

  it(
    'validate, coerce and fill in defaults exactly as the schemas compiled at start',
    propertyTimeout,
    () => {
      for (const { route, part, schema, validator } of schemas()) {
        const compiled = compileSchema(schema, coerces(part));
        fc.assert(
          fc.property(inputs(schema, coerces(part)), (value) => {
            expect(verdict(validator, value), `${route.operationId} ${part}`).toEqual(
              verdict(compiled, value),
            );
          }),
          { numRuns: 60 },
        );
      }
    },
  );
});

describe('the run-time helpers of the generated validators', () => {
  it('count code points as ajv does, lone surrogates included', propertyTimeout, async () => {
    const ajvModule = (await import('ajv/dist/runtime/ucs2length')) as unknown as {
      default: ((text: string) => number) | { default: (text: string) => number };
    };
    const ajvLength = typeof ajvModule.default === 'function' ? ajvModule.default : ajvModule.default.default;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (binary, grapheme) => {
        expect(ucs2length(binary)).toBe(ajvLength(binary));
        expect(ucs2length(grapheme)).toBe(ajvLength(grapheme));
      }),
      { numRuns: 500 },
    );
    expect(ucs2length('a\ud83d\ude00\ud83db')).toBe(4);
  });
});
