import type { ErrorObject } from 'ajv';
import { isApiDate, isApiDateTime } from '../../api/datetimes';
import { ajvFormat, type FormatTest } from '../../api/formats';
import type { JsonSchema } from '../../api/route';
import { ucs2length } from '../../api/validator-runtime';
import { timeOfDay } from '../common/field-types';
import { patternTest } from './patterns';

/**
 * The checks of record values, compiled from the JSON Schemas the field types give (common/field-types.ts and
 * `fieldJsonSchema`): `type` (with `null`), `enum`, `minimum`/`maximum`, `minLength`/`maxLength` in code points,
 * `pattern` (RE2) and the formats of the field types; and of records: `required`, `additionalProperties: false`,
 * `properties`. That closed subset is all a table schema can express, so the data group needs no schema compiler.
 * Each check reports what ajv would (keyword, params, instance path, in ajv's order), so the messages come from the
 * one place that words them (`fieldErrors` in shared/http/validation.ts); a property test holds the two equal.
 * Unlike ajv, a record's fields are its own properties only (`constructor` is not inherited from a prototype).
 */

/** One failed check, as ajv reports it. */
export type Problem = ErrorObject;

/** Checks a value at an instance path, adding what it fails to `problems`. */
export type ValueCheck = (value: unknown, path: string, problems: Problem[]) => void;

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';

const isType: Record<JsonType, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  integer: (value) => typeof value === 'number' && Number.isInteger(value),
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
  object: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  array: (value) => Array.isArray(value),
};

/** The formats field types use, as the platform registers them (PostgreSQL's zone-less `time`, API dates). */
const formats: Readonly<Record<string, FormatTest>> = {
  email: ajvFormat('email'),
  uri: ajvFormat('uri'),
  uuid: ajvFormat('uuid'),
  date: isApiDate,
  time: (text) => timeOfDay.test(text),
  'date-time': isApiDateTime,
};

const problem = (keyword: string, instancePath: string, params: Record<string, unknown>): Problem => ({
  keyword,
  instancePath,
  schemaPath: '',
  params,
});

/** The checks of one keyword group (ajv's order within it), run only on values of the group's type. */
function numberChecks(schema: JsonSchema): ValueCheck[] {
  const checks: ValueCheck[] = [];
  const { maximum, minimum } = schema as { maximum?: number; minimum?: number };
  if (maximum !== undefined)
    checks.push((value, path, problems) => {
      if ((value as number) > maximum)
        problems.push(problem('maximum', path, { comparison: '<=', limit: maximum }));
    });
  if (minimum !== undefined)
    checks.push((value, path, problems) => {
      if ((value as number) < minimum)
        problems.push(problem('minimum', path, { comparison: '>=', limit: minimum }));
    });
  return checks;
}

function stringChecks(schema: JsonSchema): ValueCheck[] {
  const checks: ValueCheck[] = [];
  const { maxLength, minLength, pattern, format } = schema as {
    maxLength?: number;
    minLength?: number;
    pattern?: string;
    format?: string;
  };
  if (maxLength !== undefined)
    checks.push((value, path, problems) => {
      if (ucs2length(value as string) > maxLength)
        problems.push(problem('maxLength', path, { limit: maxLength }));
    });
  if (minLength !== undefined)
    checks.push((value, path, problems) => {
      if (ucs2length(value as string) < minLength)
        problems.push(problem('minLength', path, { limit: minLength }));
    });
  if (pattern !== undefined) {
    const test = patternTest(pattern);
    checks.push((value, path, problems) => {
      if (!test(value as string)) problems.push(problem('pattern', path, { pattern }));
    });
  }
  if (format !== undefined) {
    const test = formats[format];
    if (!test) throw new Error(`No check for the format "${format}"`);
    checks.push((value, path, problems) => {
      if (!test(value as string)) problems.push(problem('format', path, { format }));
    });
  }
  return checks;
}

function enumCheck(allowed: readonly unknown[]): ValueCheck {
  return (value, path, problems) => {
    if (!allowed.some((item) => item === value))
      problems.push(problem('enum', path, { allowedValues: allowed }));
  };
}

/**
 * Compiles the JSON Schema of a field's values. Order as ajv's: a type error first, unless the schema has a single
 * type whose keyword group it uses (then the type error comes where that group would run), then `enum`, then the
 * number keywords, then the string keywords.
 */
export function compileValueCheck(schema: JsonSchema): ValueCheck {
  const declared = schema.type as JsonType | JsonType[] | undefined;
  const types: JsonType[] = declared === undefined ? [] : Array.isArray(declared) ? declared : [declared];
  const numbers = numberChecks(schema);
  const strings = stringChecks(schema);
  const allowed = schema.enum as readonly unknown[] | undefined;
  const single = types.length === 1 ? types[0] : undefined;
  const typeInGroup =
    (single === 'number' && numbers.length > 0) || (single === 'string' && strings.length > 0);
  const matches = (value: unknown) => types.some((type) => isType[type](value));
  const typeError = (path: string) => problem('type', path, { type: declared });
  const checkEnum = allowed ? enumCheck(allowed) : undefined;
  return (value, path, problems) => {
    if (types.length > 0 && !typeInGroup && !matches(value)) problems.push(typeError(path));
    checkEnum?.(value, path, problems);
    if (numbers.length > 0) {
      if (isType.number(value)) for (const check of numbers) check(value, path, problems);
      else if (typeInGroup && single === 'number') problems.push(typeError(path));
    }
    if (strings.length > 0) {
      if (typeof value === 'string') for (const check of strings) check(value, path, problems);
      else if (typeInGroup && single === 'string') problems.push(typeError(path));
    }
  };
}

/** A JSON Pointer segment (`~` and `/` escaped), as ajv writes instance paths. */
function pointer(name: string): string {
  return `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Compiles the checks of a record: an object of the given fields, some required, no other field. */
export function compileRecordCheck(
  properties: Readonly<Record<string, JsonSchema>>,
  required: readonly string[],
): (value: unknown) => Problem[] {
  const fields = Object.entries(properties).map(([name, schema]) => ({
    name,
    path: pointer(name),
    check: compileValueCheck(schema),
  }));
  const known = new Set(Object.keys(properties));
  const has = (record: Record<string, unknown>, name: string) =>
    Object.hasOwn(record, name) && record[name] !== undefined;
  return (value) => {
    const problems: Problem[] = [];
    if (!isType.object(value)) return [problem('type', '', { type: 'object' })];
    const record = value as Record<string, unknown>;
    for (const name of required)
      if (!has(record, name)) problems.push(problem('required', '', { missingProperty: name }));
    for (const name of Object.keys(record))
      if (!known.has(name)) problems.push(problem('additionalProperties', '', { additionalProperty: name }));
    for (const field of fields)
      if (has(record, field.name)) field.check(record[field.name], field.path, problems);
    return problems;
  };
}
