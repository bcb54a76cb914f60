import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { type FieldErrors, ValidationError } from '../errors';
import type { JsonSchema } from './route';

// ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default`.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
  });
  addFormats(ajv);
  return ajv;
}

/** Bodies are JSON: no coercion. Query strings and path parameters are text: coerced, arrays accepted. */
const bodyAjv = createAjv(false);
const textAjv = createAjv(true);

// One cache per ajv instance: the same schema may validate a body (as is) and a query string (coerced).
const bodyCache = new WeakMap<JsonSchema, ValidateFunction>();
const textCache = new WeakMap<JsonSchema, ValidateFunction>();

function compiled(schema: JsonSchema, coerce: boolean): ValidateFunction {
  const cache = coerce ? textCache : bodyCache;
  let validate = cache.get(schema);
  if (!validate) {
    validate = (coerce ? textAjv : bodyAjv).compile(schema);
    cache.set(schema, validate);
  }
  return validate;
}

/** Compiles a schema ahead of the first request (cold start), so requests only run the compiled function. */
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
    throw new ValidationError(fields, summarize(fields));
  }
  return value as T;
}
