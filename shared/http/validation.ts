import type { ErrorObject } from 'ajv';
import { type FieldErrors, ValidationError } from '../errors';
import { onFirstUse } from '../lazy';
import { patternMessages } from '../slug';
import type { JsonSchema, RouteDef } from './route';

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

// One table per coercion: the same schema may validate a body (as is) and a query string (coerced).
const bodyValidators = new WeakMap<JsonSchema, SchemaValidator>();
const textValidators = new WeakMap<JsonSchema, SchemaValidator>();
let compiler: ((schema: JsonSchema, coerce: boolean) => SchemaValidator) | undefined;
/** Routes whose generated validators have not loaded yet: they load on the route's first request. */
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

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  return path.length > 0 ? path.join('.') : 'non_field_errors';
}

function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'additionalProperties':
      return 'Unknown field.';
    case 'type':
      return `Must be of type ${String(params.type).split(',').join(' or ')}.`;
    case 'minLength':
      return params.limit === 1
        ? 'This field may not be blank.'
        : `Ensure this field has at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `Ensure this field has no more than ${String(params.limit)} characters.`;
    case 'minItems':
      return `Ensure this field has at least ${String(params.limit)} items.`;
    case 'maxItems':
      return `Ensure this field has no more than ${String(params.limit)} items.`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `Ensure this value is greater than or equal to ${String(params.limit)}.`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `Ensure this value is less than or equal to ${String(params.limit)}.`;
    case 'enum':
      return `Must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'format':
      return `Must be a valid ${String(params.format)}.`;
    case 'pattern':
      return (
        patternMessages.get(String(params.pattern)) ?? `Must match the pattern ${String(params.pattern)}.`
      );
    default:
      return error.message
        ? `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`
        : 'Invalid value.';
  }
}

/**
 * An empty set of field errors without a prototype: field names come from input, and `constructor` or
 * `__proto__` must be keys like any other.
 */
export function newFieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

/** Turns ajv errors into messages keyed by field (`a.b` for nested fields). */
export function fieldErrors(errors: readonly ErrorObject[]): FieldErrors {
  const fields = newFieldErrors();
  for (const error of errors) {
    // `if`/`anyOf` wrappers repeat what their branches already said.
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    const field = fieldOf(error);
    const message = messageOf(error);
    const list = fields[field] ?? [];
    if (!list.includes(message)) list.push(message);
    fields[field] = list;
  }
  return fields;
}

/** One readable sentence naming every failing field, for envelopes with a single message. */
export function summarize(fields: FieldErrors): string {
  return Object.entries(fields)
    .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
    .join(' ');
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
