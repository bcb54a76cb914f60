import { createHash } from 'node:crypto';
import type { Ajv, Options, ValidateFunction } from 'ajv';
import { loadPatternEngine, re2Engine } from '../data/schema/patterns';
import { fieldErrors } from '../field-errors';
import { onFirstUse } from '../lazy';
import { secretErrors } from './errors';
import type { SecretType } from './model';
import { schemaProblem } from './schema-rules';

/**
 * The size of a secret value. Bytes of its JSON (UTF-8): a private value is stored as base64 ciphertext (4/3 of it),
 * a public one as a DynamoDB map; with the other attributes the item stays far below DynamoDB's 400 KB (history
 * records never copy the value). Nodes (every object, array and scalar in it): a validation's work grows with the
 * value's nodes times the schema's subschemas, and both are bounded.
 */
export const valueLimits = { bytes: 64 * 1024, nodes: 1000 } as const;

/** Compiled validators kept per container (one per site and type, the type's current schema). */
export const maxCompiledValidators = 100;

/**
 * Type schemas come from clients: any JSON Schema within the rules of ./schema-rules.ts, compiled with ajv, which
 * (with ajv-formats and RE2, about 280 KiB) loads with the first schema to check or value to validate; reading
 * secrets never loads it. Patterns run on RE2 (no catastrophic backtracking), nothing is coerced.
 *
 * Each schema compiles in an ajv instance of its own, dropped with the validator: ajv keeps every schema it compiled
 * (and the values its code refers to) for the life of the instance, and resolves `$ref` against all of them, so a
 * shared instance would grow with every schema ever written and let one tenant's schema reach another's. One
 * long-lived instance only checks schemas against the draft-07 meta-schema; no client schema is ever added to it.
 */
const ajvModules = onFirstUse(async () => {
  const [{ Ajv }, formatsModule] = await Promise.all([
    import('ajv'),
    import('ajv-formats'),
    loadPatternEngine(),
  ]);
  // ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default.default`.
  const plugin = formatsModule.default as unknown as { default?: typeof formatsModule.default };
  const addFormats = (plugin.default ?? formatsModule.default) as typeof formatsModule.default;
  const options: Options = {
    // The first failure ends a validation: with every failure collected, a failing `anyOf` under `items` costs
    // the value's items times the branches in error objects.
    allErrors: false,
    strict: false,
    coerceTypes: false,
    code: { regExp: re2Engine },
    addUsedSchema: false,
  };
  const make = (more: Options = {}): Ajv => {
    const ajv = new Ajv({ ...options, ...more });
    addFormats(ajv);
    return ajv;
  };
  return { make, meta: make() };
});

/** Compiles a schema that passed the rules, in an instance of its own. */
async function compileAlone(schema: Record<string, unknown>): Promise<ValidateFunction> {
  const { make } = await ajvModules();
  return make({ validateSchema: false, meta: false }).compile(schema);
}

/** A bounded cache of compiled validators, least recently used out first. */
export class ValidatorCache {
  private readonly entries = new Map<string, { version: string; validate: ValidateFunction }>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The validator of `id` at `version`; an entry of another version is dropped. */
  get(id: string, version: string): ValidateFunction | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    if (entry.version !== version) return undefined;
    this.entries.set(id, entry);
    return entry.validate;
  }

  set(id: string, version: string, validate: ValidateFunction): void {
    this.entries.delete(id);
    while (this.entries.size >= this.capacity)
      this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(id, { version, validate });
  }
}

const validators = new ValidatorCache(maxCompiledValidators);

/**
 * Checks a type's schema before it is stored: the platform's rules (./schema-rules.ts), the draft-07 meta-schema,
 * then a compilation. Each refusal is a 400 naming `schema`.
 */
export async function checkSchema(schema: Record<string, unknown>): Promise<void> {
  const problem = schemaProblem(schema);
  if (problem) throw secretErrors.field('schema', problem);
  const { meta } = await ajvModules();
  let valid: boolean;
  try {
    valid = meta.validateSchema(schema) as boolean;
  } catch (error) {
    throw secretErrors.field('schema', `Not a valid JSON Schema: ${(error as Error).message}`);
  }
  if (!valid) throw secretErrors.field('schema', `Not a valid JSON Schema: ${meta.errorsText(meta.errors)}`);
  try {
    await compileAlone(schema);
  } catch (error) {
    throw secretErrors.field('schema', `Not a valid JSON Schema: ${(error as Error).message}`);
  }
}

/** The JSON nodes of a value, counting stops past `limit`. */
function nodesOf(value: unknown, limit: number): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && count <= limit) {
    const node = pending.pop();
    count++;
    if (typeof node === 'object' && node !== null)
      for (const child of Object.values(node)) pending.push(child);
  }
  return count;
}

/** Refuses a value past `valueLimits` (400 naming `value`), before anything else looks at it. */
export function checkValueSize(value: unknown): void {
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  if (bytes > valueLimits.bytes)
    throw secretErrors.field(
      'value',
      `The value is ${bytes} bytes of JSON; at most ${valueLimits.bytes} are allowed.`,
    );
  if (nodesOf(value, valueLimits.nodes) > valueLimits.nodes)
    throw secretErrors.field(
      'value',
      `The value holds more than ${valueLimits.nodes} JSON values (objects, arrays, strings, numbers...).`,
    );
}

/** The validator of a type's current schema, compiled once per container while it stays in the cache. */
async function validatorOf(type: Pick<SecretType, 'site' | 'slug' | 'schema'>): Promise<ValidateFunction> {
  const id = JSON.stringify([type.site, type.slug]);
  const version = createHash('sha256').update(JSON.stringify(type.schema)).digest('hex');
  const cached = validators.get(id, version);
  if (cached) return cached;
  // A schema stored before today's rules is not compiled: the type must be changed first.
  const problem = schemaProblem(type.schema);
  if (problem)
    throw secretErrors.field(
      'secret_type',
      `The schema of this secret type is no longer allowed: ${problem}`,
    );
  const validate = await compileAlone(type.schema);
  validators.set(id, version, validate);
  return validate;
}

/** Validates a secret value against its type's schema: `Schema validation failed` naming the first failing field. */
export async function checkValue(
  type: Pick<SecretType, 'site' | 'slug' | 'schema'>,
  value: unknown,
): Promise<void> {
  checkValueSize(value);
  const validate = await validatorOf(type);
  if (!validate(value)) throw secretErrors.schemaValidation(fieldErrors(validate.errors ?? []));
}
