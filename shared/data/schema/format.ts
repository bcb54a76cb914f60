import { maxInt32 } from '../../api/numbers';
import type { JsonSchema } from '../../api/route';

/**
 * The JSON Schemas of the table schema format (request bodies): the shape only; `table-checks.ts` checks the
 * meaning.
 */

/** Limits of a table schema. */
export const schemaLimits = { fields: 250, indexes: 50, foreignKeys: 50, enumValues: 1000 } as const;

const names = { type: ['string', 'array'], minItems: 1, items: { type: 'string' } } as const;

/**
 * The JSON Schema of one field definition: the shape only. Names, types, formats and how constraints fit the type
 * are checked by `checkTableSchema`, whose messages name the field.
 */
export const fieldJson = {
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string' },
    format: { type: 'string' },
    title: { type: 'string', maxLength: 200 },
    description: { type: 'string', maxLength: 2000 },
    example: {},
    default: {},
    sensitive: { type: 'boolean', description: 'Left out of the record events webhooks receive' },
    constraints: {
      type: 'object',
      properties: {
        required: { type: 'boolean' },
        unique: { type: 'boolean' },
        minLength: { type: 'integer', minimum: 0, maximum: maxInt32 },
        maxLength: { type: 'integer', minimum: 0, maximum: maxInt32 },
        minimum: { type: 'number' },
        maximum: { type: 'number' },
        pattern: { type: 'string', minLength: 1, maxLength: 1000 },
        enum: {
          type: 'array',
          minItems: 1,
          maxItems: schemaLimits.enumValues,
          uniqueItems: true,
          items: { type: ['string', 'number', 'boolean'] },
        },
      },
      additionalProperties: false,
    },
    'x-search': {
      type: 'object',
      required: ['fields'],
      properties: {
        fields: { type: 'array', minItems: 1, items: { type: 'string' } },
        language: { type: 'string' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export const indexJson = {
  type: 'object',
  required: ['fields'],
  properties: { name: { type: 'string' }, fields: names, unique: { type: 'boolean' } },
  additionalProperties: false,
} as const;

const relationshipTypeJson = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 50 },
    inverse: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', maxLength: 50 },
    description: { type: 'string', maxLength: 2000 },
    constraints: {
      type: 'object',
      properties: {
        max_outgoing: { type: 'integer', minimum: 1, maximum: maxInt32 },
        max_incoming: { type: 'integer', minimum: 1, maximum: maxInt32 },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

/** The JSON Schema of a table schema (Frictionless Table Schema plus the extensions in docs/data-tables.md). */
export const tableSchemaJson = {
  type: 'object',
  required: ['fields'],
  properties: {
    fields: { type: 'array', minItems: 1, maxItems: schemaLimits.fields, items: fieldJson },
    primaryKey: names,
    uniqueKeys: { type: 'array', items: names },
    foreignKeys: {
      type: 'array',
      maxItems: schemaLimits.foreignKeys,
      items: {
        type: 'object',
        required: ['fields', 'reference'],
        properties: {
          fields: names,
          reference: {
            type: 'object',
            required: ['resource', 'fields'],
            properties: { resource: { type: 'string' }, fields: names },
            additionalProperties: false,
          },
          'x-actions': {
            type: 'object',
            properties: {
              onDelete: {
                type: 'string',
                enum: ['CASCADE', 'SET NULL', 'SET DEFAULT', 'RESTRICT', 'NO ACTION'],
              },
            },
            additionalProperties: false,
          },
        },
        additionalProperties: false,
      },
    },
    indexes: { type: 'array', maxItems: schemaLimits.indexes, items: indexJson },
    hierarchy: { type: 'boolean' },
    graph: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean' },
        types: { type: 'array', maxItems: 50, items: relationshipTypeJson },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const satisfies JsonSchema;
