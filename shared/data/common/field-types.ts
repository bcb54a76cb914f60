import type { JsonSchema } from '../../api/route';
import type { FieldDef, FieldType } from './model';

/**
 * What each field type means in PostgreSQL and in JSON: its column type, its JSON Schema, which constraints apply,
 * how a stored value is shown and how a query-string value is read. The one table to extend with a new type.
 */
interface TypeRule {
  /** The column type: a constant of this table, never input. */
  column: (field: FieldDef) => string;
  /** JSON Schema of a value (without nullability and constraints). */
  json: (field: FieldDef) => JsonSchema;
  /** Constraints (besides `required`) this type accepts. */
  constraints: readonly string[];
  /** Whether the type can be compared: unique, indexes, keys, filters. */
  comparable: boolean;
  /** A stored value as the API shows it. */
  output: (value: unknown) => unknown;
}

const same = (value: unknown) => value;
const toNumber = (value: unknown) => (typeof value === 'string' ? Number(value) : value);
const toDate = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : value);
const toDateTime = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

const lengthAndPattern = ['unique', 'minLength', 'maxLength', 'pattern', 'enum'] as const;
const range = ['unique', 'minimum', 'maximum', 'enum'] as const;

const rules: Record<FieldType, TypeRule> = {
  string: {
    column: (field) => (field.format === 'uuid' ? 'uuid' : 'text'),
    json: (field) =>
      field.format && field.format !== 'default'
        ? { type: 'string', format: field.format }
        : { type: 'string' },
    constraints: lengthAndPattern,
    comparable: true,
    output: same,
  },
  integer: {
    column: () => 'bigint',
    // bigint holds more, but JSON numbers beyond 2^53 lose digits.
    json: () => ({ type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
    constraints: range,
    comparable: true,
    output: toNumber,
  },
  number: {
    column: () => 'numeric',
    json: () => ({ type: 'number' }),
    constraints: range,
    comparable: true,
    output: toNumber,
  },
  boolean: {
    column: () => 'boolean',
    json: () => ({ type: 'boolean' }),
    constraints: ['unique'],
    comparable: true,
    output: same,
  },
  date: {
    column: () => 'date',
    json: () => ({ type: 'string', format: 'date' }),
    constraints: ['unique'],
    comparable: true,
    output: toDate,
  },
  time: {
    column: () => 'time',
    json: () => ({ type: 'string', format: 'time' }),
    constraints: ['unique'],
    comparable: true,
    output: same,
  },
  datetime: {
    column: () => 'timestamptz',
    json: () => ({ type: 'string', format: 'date-time' }),
    constraints: ['unique'],
    comparable: true,
    output: toDateTime,
  },
  object: {
    column: () => 'jsonb',
    json: () => ({ type: 'object' }),
    constraints: [],
    comparable: false,
    output: same,
  },
  array: {
    column: () => 'jsonb',
    json: () => ({ type: 'array' }),
    constraints: [],
    comparable: false,
    output: same,
  },
  json: { column: () => 'jsonb', json: () => ({}), constraints: [], comparable: false, output: same },
  any: { column: () => 'jsonb', json: () => ({}), constraints: [], comparable: false, output: same },
  tsvector: { column: () => 'tsvector', json: () => ({}), constraints: [], comparable: false, output: same },
};

export function typeRule(type: FieldType): TypeRule {
  return rules[type];
}

export function isJsonType(type: FieldType): boolean {
  return rules[type].column({ name: '', type }) === 'jsonb';
}

/** A field's column type, from the table above. */
export function columnType(field: FieldDef): string {
  return rules[field.type].column(field);
}

/** Hours, minutes and optionally seconds and fractions, without a zone: PostgreSQL's `time`. */
export const timeOfDay = /^(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?$/;
