import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import type { FieldErrors } from '../errors';
import type { JsonSchema } from '../http/route';
import { fieldErrors, newFieldErrors } from '../http/validation';
import { isApiDate, isApiDateTime } from './datetimes';
import type { FieldDef, TableSchema } from './model';
import { systemFields } from './model';
import { anchored, re2Engine } from './patterns';
import { timeOfDay, typeRule } from './types';

// ajv-formats ships CommonJS; under ESM interop the plugin may sit on `default`.
const addFormats = ((addFormatsPlugin as unknown as { default?: typeof addFormatsPlugin }).default ??
  addFormatsPlugin) as typeof addFormatsPlugin;

/** Records are JSON: no coercion, and no defaults (the database applies them); patterns run on RE2. */
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  code: { regExp: re2Engine },
});
addFormats(ajv);
// PostgreSQL's `time` has no zone: ajv-formats' `time` demands one.
ajv.addFormat('time', timeOfDay);
// Dates and datetimes the API can show back as they were: years 0001-9999 (UTC), at most microseconds.
ajv.addFormat('date-time', isApiDateTime);
ajv.addFormat('date', isApiDate);

/** Fields the platform fills in: accepted in a body (clients send records back) but ignored. */
export function isReadOnly(field: FieldDef): boolean {
  return (
    field.type === 'tsvector' ||
    field.name === systemFields.createdAt ||
    field.name === systemFields.updatedAt
  );
}

/** Whether the database provides a value when a create omits the field. */
export function hasDatabaseDefault(field: FieldDef, schema: TableSchema): boolean {
  if (field.default !== undefined || isReadOnly(field) || field.name === systemFields.isDeleted) return true;
  if (schema.primaryKey[0] !== field.name) return false;
  return field.type === 'integer' || field.format === 'uuid';
}

/** The JSON Schema of one field's values, with its constraints; null allowed unless the field is required. */
export function fieldJsonSchema(field: FieldDef, primaryKey: boolean): JsonSchema {
  const rule = typeRule(field.type);
  const base = rule.json(field);
  const c = field.constraints ?? {};
  const schema: Record<string, unknown> = { ...base };
  if (c.minLength !== undefined) schema.minLength = c.minLength;
  if (c.maxLength !== undefined) schema.maxLength = c.maxLength;
  if (c.pattern !== undefined) schema.pattern = anchored(c.pattern);
  if (c.minimum !== undefined)
    schema.minimum = Math.max(c.minimum, (base.minimum as number | undefined) ?? Number.NEGATIVE_INFINITY);
  if (c.maximum !== undefined)
    schema.maximum = Math.min(c.maximum, (base.maximum as number | undefined) ?? Number.POSITIVE_INFINITY);
  if (c.enum !== undefined) schema.enum = [...c.enum];
  const nullable = !(c.required || primaryKey || field.name === systemFields.isDeleted);
  if (nullable) {
    if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  }
  return schema;
}

export interface RecordValidators {
  /** A whole new record. */
  create: ValidateFunction;
  /** Some fields of an existing record. */
  patch: ValidateFunction;
}

/** Builds and compiles the validators of a table schema (once per schema version: see catalog caching). */
export function compileRecordValidators(schema: TableSchema): RecordValidators {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const key = schema.primaryKey[0];
  for (const field of schema.fields) {
    if (isReadOnly(field)) continue;
    properties[field.name] = fieldJsonSchema(field, field.name === key);
    if ((field.constraints?.required || field.name === key) && !hasDatabaseDefault(field, schema))
      required.push(field.name);
  }
  const create = { type: 'object', properties, required, additionalProperties: false };
  const patch = { type: 'object', properties, additionalProperties: false };
  return { create: ajv.compile(create), patch: ajv.compile(patch) };
}

/** Runs a validator; the messages keyed by field, each key prefixed (bulk: the record's index). */
export function check(validate: ValidateFunction, value: unknown, prefix = ''): FieldErrors | undefined {
  if (validate(value)) return undefined;
  const errors = fieldErrors(validate.errors ?? []);
  if (!prefix) return errors;
  const prefixed = newFieldErrors();
  for (const [field, messages] of Object.entries(errors)) {
    prefixed[field === 'non_field_errors' ? prefix : `${prefix}.${field}`] = messages;
  }
  return prefixed;
}

/** Whether a value is valid for a field (defaults of a table schema). */
export function checkValue(field: FieldDef, primaryKey: boolean, value: unknown): string[] {
  const validate = ajv.compile({
    type: 'object',
    properties: { value: fieldJsonSchema(field, primaryKey) },
  });
  return check(validate, { value })?.value ?? [];
}

const valueValidators = new Map<string, ValidateFunction>();

/** Whether a value has the field's type and format (constraints aside): filter values. Empty when it has. */
export function valueProblems(field: FieldDef, value: unknown): string[] {
  const cacheKey = `${field.type}/${field.format ?? ''}`;
  let validate = valueValidators.get(cacheKey);
  if (!validate) {
    validate = ajv.compile({
      type: 'object',
      properties: { value: typeRule(field.type).json(field) },
    });
    valueValidators.set(cacheKey, validate);
  }
  return check(validate, { value })?.value ?? [];
}
