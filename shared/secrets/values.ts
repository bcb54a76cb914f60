import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { re2Engine } from '../data/patterns';
import { fieldErrors } from '../http/validation';
import { secretErrors } from './errors';

// ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default`.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

/** Type schemas come from clients: patterns run on RE2 (no catastrophic backtracking), nothing is coerced. */
const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, code: { regExp: re2Engine } });
addFormats(ajv);

/** Compiled validators by the hash of their schema: each schema version compiles once per container. */
const compiledSchemas = new Map<string, ValidateFunction>();
const maxCompiled = 500;

function compile(schema: Record<string, unknown>): ValidateFunction {
  const id = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
  let validate = compiledSchemas.get(id);
  if (!validate) {
    validate = ajv.compile(schema);
    if (compiledSchemas.size >= maxCompiled) compiledSchemas.clear();
    compiledSchemas.set(id, validate);
  }
  return validate;
}

/** Checks that a type's schema is a JSON Schema ajv can compile (400 naming `schema` otherwise). */
export function checkSchema(schema: Record<string, unknown>): void {
  try {
    compile(schema);
  } catch (error) {
    throw secretErrors.field('schema', `Not a valid JSON Schema: ${(error as Error).message}`);
  }
}

/** Validates a secret value against its type's schema: `Schema validation failed` with each failing field. */
export function checkValue(schema: Record<string, unknown>, value: unknown): void {
  const validate = compile(schema);
  if (!validate(value)) throw secretErrors.schemaValidation(fieldErrors(validate.errors ?? []));
}
