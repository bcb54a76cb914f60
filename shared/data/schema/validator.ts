import type { JsonSchema } from '../../api/route';
import type { FieldErrors } from '../../errors';
import { fieldErrors, newFieldErrors } from '../../field-errors';
import { typeRule } from '../common/field-types';
import type { FieldDef, TableSchema } from '../common/model';
import { systemFields } from '../common/model';
import { anchored } from './patterns';
import { compileRecordCheck, compileValueCheck, type Problem } from './value-checks';

/**
 * Records are JSON: no coercion, and no defaults (the database applies them); patterns run on RE2, which the caller
 * loads first (`loadPatternEngineFor`, patterns.ts). The checks are compiled from each field's JSON Schema by
 * value-checks.ts.
 */

/** A record's checks: what a value fails (empty when valid). */
export type RecordCheck = (value: unknown) => Problem[];

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
  create: RecordCheck;
  /** Some fields of an existing record. */
  patch: RecordCheck;
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
  return { create: compileRecordCheck(properties, required), patch: compileRecordCheck(properties, []) };
}

/** Runs a validator; the messages keyed by field, each key prefixed (bulk: the record's index). */
export function check(validate: RecordCheck, value: unknown, prefix = ''): FieldErrors | undefined {
  const problems = validate(value);
  if (problems.length === 0) return undefined;
  const errors = fieldErrors(problems);
  if (!prefix) return errors;
  const prefixed = newFieldErrors();
  for (const [field, messages] of Object.entries(errors)) {
    prefixed[field === 'non_field_errors' ? prefix : `${prefix}.${field}`] = messages;
  }
  return prefixed;
}

/** The messages of a single value's problems (reported at `/value`). */
function messagesOf(check: ReturnType<typeof compileValueCheck>, value: unknown): string[] {
  const problems: Problem[] = [];
  check(value, '/value', problems);
  return problems.length === 0 ? [] : (fieldErrors(problems).value ?? []);
}

/** Whether a value is valid for a field (defaults of a table schema). Empty when it is. */
export function checkValue(field: FieldDef, primaryKey: boolean, value: unknown): string[] {
  return messagesOf(compileValueCheck(fieldJsonSchema(field, primaryKey)), value);
}

const valueChecks = new Map<string, ReturnType<typeof compileValueCheck>>();

/** Whether a value has the field's type and format (constraints aside): filter values. Empty when it has. */
export function valueProblems(field: FieldDef, value: unknown): string[] {
  const cacheKey = `${field.type}/${field.format ?? ''}`;
  let check = valueChecks.get(cacheKey);
  if (!check) {
    check = compileValueCheck(typeRule(field.type).json(field));
    valueChecks.set(cacheKey, check);
  }
  return messagesOf(check, value);
}
