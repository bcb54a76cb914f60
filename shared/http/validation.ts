import type { ErrorObject } from 'ajv';
import type { JsonSchema, RouteDef } from '../api/route';
import { ValidationError } from '../errors';
import { fieldErrors, summarize } from '../field-errors';
import { onFirstUse } from '../lazy';

/** A compiled route schema: ajv's validate function, compiled at start or generated ahead of time. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Where a route's schema sits in a request: bodies are JSON; query strings and path parameters are text. */
export type SchemaPart = 'body' | 'query' | 'params';

/** A route's validators generated ahead of time: one per schema part it declares. */
export type RouteValidators = Readonly<Partial<Record<SchemaPart, SchemaValidator>>>;

/** Per operation id, the loader of its route's generated module (functions/<group>/validators/). */
export type RouteValidatorLoaders = Readonly<Record<string, () => Promise<RouteValidators>>>;

const schemaPartNames: readonly SchemaPart[] = ['body', 'query', 'params'];

/** The schema parts a route declares. */
export function schemaParts(route: RouteDef): SchemaPart[] {
  return schemaPartNames.filter((part) => route[part] !== undefined);
}

/** Text inputs are coerced (a query string's `?page=2` is a number), JSON bodies are not. */
export function coerces(part: SchemaPart): boolean {
  return part !== 'body';
}

// One table per coercion: the same schema may validate a body (as is) and a query string (coerced). Bound: the
// route table's schemas, fixed at build time (keys are the routes' own schema objects, never a request's).
const bodyValidators = new WeakMap<JsonSchema, SchemaValidator>();
const textValidators = new WeakMap<JsonSchema, SchemaValidator>();
let compiler: ((schema: JsonSchema, coerce: boolean) => SchemaValidator) | undefined;
/** Routes whose generated validators have not loaded yet: they load on the route's first request (bound: the routes). */
const unloaded = new WeakMap<RouteDef, () => Promise<void>>();

/**
 * Lets schemas without a generated validator compile at start (shared/http/schema-compiler.ts): the local server
 * and the tests. A Lambda never sets it, so ajv's compiler stays out of its bundle.
 */
export function useSchemaCompiler(compile: (schema: JsonSchema, coerce: boolean) => SchemaValidator): void {
  compiler = compile;
}

function register(route: RouteDef, validators: RouteValidators): void {
  for (const part of schemaParts(route)) {
    const validator = validators[part];
    if (!validator)
      throw new Error(`No generated validator for ${route.operationId} ${part}: run npm run validators`);
    (coerces(part) ? textValidators : bodyValidators).set(route[part] as JsonSchema, validator);
  }
}

/**
 * Registers the loaders of a group's generated validators (a Lambda's handler); throws at cold start if a route
 * with schemas has none. Each route's module loads on its first request (`validatorsLoaded`).
 */
export function useGeneratedValidators(routes: readonly RouteDef[], loaders: RouteValidatorLoaders): void {
  for (const route of routes) {
    if (schemaParts(route).length === 0) continue;
    const load = loaders[route.operationId];
    if (!load) throw new Error(`No generated validators for ${route.operationId}: run npm run validators`);
    unloaded.set(
      route,
      onFirstUse(async () => register(route, await load())),
    );
  }
}

/**
 * Loads a route's generated validators if they have not loaded yet: a promise on the route's first request,
 * undefined afterwards (and where the schemas compile at start), so that later requests do not wait.
 */
export function validatorsLoaded(route: RouteDef): Promise<void> | undefined {
  const load = unloaded.get(route);
  if (!load) return undefined;
  return load().then(() => {
    unloaded.delete(route);
  });
}

function compiled(schema: JsonSchema, coerce: boolean): SchemaValidator {
  const cache = coerce ? textValidators : bodyValidators;
  let validate = cache.get(schema);
  if (!validate) {
    if (!compiler) throw new Error('A route schema has neither a generated validator nor a compiler');
    validate = compiler(schema, coerce);
    cache.set(schema, validate);
  }
  return validate;
}

/** Compiles a route's schemas ahead of its first request where they are not generated (local server, tests). */
export function prepareValidators(route: RouteDef): void {
  if (unloaded.has(route)) return;
  for (const part of schemaParts(route)) compiled(route[part] as JsonSchema, coerces(part));
}

/** Validates (and, for text inputs, coerces in place) a value against a schema; throws a ValidationError. */
export function validate<T>(schema: JsonSchema, value: unknown, coerce = false): T {
  const run = compiled(schema, coerce);
  if (!run(value)) {
    const fields = fieldErrors(run.errors ?? []);
    throw new ValidationError({ fields, message: summarize(fields) });
  }
  return value as T;
}
