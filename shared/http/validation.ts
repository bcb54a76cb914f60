import type { ErrorObject } from 'ajv';
import { type FieldErrors, ValidationError } from '../errors';
import type { JsonSchema, RouteDef } from './route';

/** A compiled route schema: ajv's validate function, compiled at start or generated ahead of time. */
export type SchemaValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Where a route's schema sits in a request: bodies are JSON; query strings and path parameters are text. */
export type SchemaPart = 'body' | 'query' | 'params';

/** The validators generated ahead of time for a group's routes, keyed by `validatorName`. */
export type GeneratedValidators = Readonly<Record<string, SchemaValidator>>;

/** The name of a route's generated validator (an identifier: the generated module exports it). */
export function validatorName(operationId: string, part: SchemaPart): string {
  return `${operationId}_${part}`;
}

/** Text inputs are coerced (a query string's `?page=2` is a number), JSON bodies are not. */
export function coerces(part: SchemaPart): boolean {
  return part !== 'body';
}

// One table per coercion: the same schema may validate a body (as is) and a query string (coerced).
const bodyValidators = new WeakMap<JsonSchema, SchemaValidator>();
const textValidators = new WeakMap<JsonSchema, SchemaValidator>();
let compiler: ((schema: JsonSchema, coerce: boolean) => SchemaValidator) | undefined;

/**
 * Lets schemas without a generated validator compile at start (shared/http/schema-compiler.ts): the local server
 * and the tests. A Lambda never sets it, so ajv's compiler stays out of its bundle.
 */
export function useSchemaCompiler(compile: (schema: JsonSchema, coerce: boolean) => SchemaValidator): void {
  compiler = compile;
}

/** Registers the generated validators of a group's routes; throws at cold start if one is missing. */
export function useGeneratedValidators(routes: readonly RouteDef[], generated: GeneratedValidators): void {
  for (const route of routes) {
    for (const part of ['body', 'query', 'params'] as const) {
      const schema = route[part];
      if (!schema) continue;
      const validator = generated[validatorName(route.operationId, part)];
      if (!validator)
        throw new Error(`No generated validator for ${route.operationId} ${part}: run npm run validators`);
      (coerces(part) ? textValidators : bodyValidators).set(schema, validator);
    }
  }
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

/** Finds (or compiles) a schema's validator ahead of the first request, so requests only run it. */
export function precompile(schema: JsonSchema | undefined, coerce: boolean): void {
  if (schema) compiled(schema, coerce);
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
      return `Must match the pattern ${String(params.pattern)}.`;
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
