import { createHash } from 'node:crypto';
import type { Ajv, ValidateFunction } from 'ajv';
import { loadPatternEngine, re2Engine } from '../data/patterns';
import { fieldErrors } from '../http/validation';
import { onFirstUse } from '../lazy';
import { secretErrors } from './errors';

/**
 * Type schemas come from clients: any JSON Schema, so they compile with ajv, which (with ajv-formats and RE2, about
 * 280 KiB) loads with the first schema to check or value to validate; reading secrets never loads it. Patterns run
 * on RE2 (no catastrophic backtracking), nothing is coerced.
 */
const compiler = onFirstUse(async (): Promise<Ajv> => {
  const [{ Ajv }, formatsModule] = await Promise.all([
    import('ajv'),
    import('ajv-formats'),
    loadPatternEngine(),
  ]);
  // ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default.default`.
  const plugin = formatsModule.default as unknown as { default?: typeof formatsModule.default };
  const addFormats = (plugin.default ?? formatsModule.default) as typeof formatsModule.default;
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, code: { regExp: re2Engine } });
  addFormats(ajv);
  return ajv;
});

/** Compiled validators by the hash of their schema: each schema version compiles once per container. */
const compiledSchemas = new Map<string, ValidateFunction>();
const maxCompiled = 500;

async function compile(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const id = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
  let validate = compiledSchemas.get(id);
  if (!validate) {
    validate = (await compiler()).compile(schema);
    if (compiledSchemas.size >= maxCompiled) compiledSchemas.clear();
    compiledSchemas.set(id, validate);
  }
  return validate;
}

/** Checks that a type's schema is a JSON Schema ajv can compile (400 naming `schema` otherwise). */
export async function checkSchema(schema: Record<string, unknown>): Promise<void> {
  try {
    await compile(schema);
  } catch (error) {
    throw secretErrors.field('schema', `Not a valid JSON Schema: ${(error as Error).message}`);
  }
}

/** Validates a secret value against its type's schema: `Schema validation failed` with each failing field. */
export async function checkValue(schema: Record<string, unknown>, value: unknown): Promise<void> {
  const validate = await compile(schema);
  if (!validate(value)) throw secretErrors.schemaValidation(fieldErrors(validate.errors ?? []));
}
