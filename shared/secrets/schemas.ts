/** Request and response schemas of the secrets group (JSON Schema, compiled once by the handler). */

import { orderings } from '../api/listing';
import { maxInt32 } from '../api/numbers';
import { pageQuery } from '../api/pagination';
import { slugMaxLength } from '../slug';
import { keyPattern, namePattern, sensitivityLevels, typeKinds } from './model';

/** Limits of the spec and ours (docs/secrets.md, "Limits"). */
export const limits = {
  nameLength: 100,
  descriptionLength: 1000,
  keyLength: 200,
  tagsPerSecret: 50,
  historyDefault: 10,
  historyMax: 100,
} as const;

const name = { type: 'string', minLength: 1, maxLength: limits.nameLength, pattern: namePattern } as const;
const description = { type: 'string', maxLength: limits.descriptionLength } as const;
const key = { type: 'string', minLength: 1, maxLength: limits.keyLength, pattern: keyPattern } as const;
const color = { type: 'string', pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$' } as const;
const jsonSchema = { type: 'object' } as const;
const value = { type: 'object' } as const;
const tagList = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: limits.nameLength },
  maxItems: limits.tagsPerSecret,
} as const;
const appRef = { type: ['string', 'null'], minLength: 1, maxLength: slugMaxLength } as const;
/** An app named in a query: at most as long as a slug, so it can never overflow a store key. */
const appParam = { type: 'string', minLength: 1, maxLength: slugMaxLength } as const;

export const listTypesQuery = {
  type: 'object',
  properties: {
    search: { type: 'string' },
    type: { type: 'string', enum: typeKinds },
    sensitivity_level: { type: 'string', enum: sensitivityLevels },
    ordering: {
      type: 'string',
      enum: orderings(['name', 'type', 'sensitivity_level', 'created_at', 'modified_at']),
      default: 'name',
    },
    ...pageQuery(20, 100),
  },
} as const;

export const createTypeBody = {
  type: 'object',
  required: ['name', 'sensitivity_level'],
  properties: {
    type: { type: 'string', enum: typeKinds, default: 'custom' },
    name,
    description,
    sensitivity_level: { type: 'string', enum: sensitivityLevels },
    schema: jsonSchema,
  },
  additionalProperties: false,
} as const;

/** `type` and `sensitivity_level` are declared so that sending them is the spec's classification error. */
export const updateTypeBody = {
  type: 'object',
  properties: { name, description, schema: jsonSchema, type: {}, sensitivity_level: {} },
  additionalProperties: false,
} as const;

export const listSecretsQuery = {
  type: 'object',
  properties: {
    search: { type: 'string' },
    key: { type: 'string' },
    app: { type: 'string', maxLength: slugMaxLength },
    tags: { type: 'string' },
    secret_type: { type: 'string' },
    created_by: { type: 'string' },
    ordering: {
      type: 'string',
      enum: orderings(['key', 'created_at', 'modified_at', 'type__name', 'created_by__username']),
      default: '-created_at',
    },
    ...pageQuery(20, 100),
  },
} as const;

export const getSecretQuery = {
  type: 'object',
  properties: { app: appParam, tags: { type: 'string' } },
} as const;

export const appQuery = {
  type: 'object',
  properties: { app: appParam },
} as const;

export const historyQuery = {
  type: 'object',
  properties: {
    app: appParam,
    limit: { type: 'integer', minimum: 1, maximum: limits.historyMax, default: limits.historyDefault },
    offset: { type: 'integer', minimum: 0, maximum: maxInt32, default: 0 },
  },
} as const;

export const createSecretBody = {
  type: 'object',
  required: ['secret_type', 'key', 'value'],
  properties: { secret_type: { type: 'string', minLength: 1 }, key, value, tags: tagList, app: appRef },
  additionalProperties: false,
} as const;

/** The key may be sent back as it is; a different key is refused (a secret is not renamed). */
export const updateSecretBody = {
  type: 'object',
  required: ['secret_type', 'value'],
  properties: { secret_type: { type: 'string', minLength: 1 }, key, value, tags: tagList },
  additionalProperties: false,
} as const;

export const createTagBody = {
  type: 'object',
  required: ['name'],
  properties: { name, description, color },
  additionalProperties: false,
} as const;

export const replaceTagBody = createTagBody;

export const patchTagBody = {
  type: 'object',
  properties: { name, description, color },
  additionalProperties: false,
} as const;

// Responses (shared/secrets/views.ts).

const dateTime = { type: 'string', format: 'date-time' } as const;

export const secretType = {
  type: 'object',
  required: [
    'type',
    'name',
    'slug',
    'description',
    'sensitivity_level',
    'schema',
    'created_at',
    'modified_at',
  ],
  properties: {
    type: { type: 'string', enum: typeKinds },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'string' },
    sensitivity_level: { type: 'string', enum: sensitivityLevels },
    schema: { type: 'object' },
    created_at: dateTime,
    modified_at: dateTime,
  },
  additionalProperties: false,
} as const;

export const createdType = {
  type: 'object',
  required: ['status', 'message', 'data'],
  properties: {
    status: { const: 'success' },
    message: { type: 'string' },
    data: {
      type: 'object',
      required: ['type', 'name', 'slug', 'sensitivity_level'],
      properties: {
        type: { type: 'string' },
        name: { type: 'string' },
        slug: { type: 'string' },
        sensitivity_level: { type: 'string' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;

export function pageOf<const S extends object>(item: S) {
  return {
    type: 'object',
    required: ['items', 'count', 'next', 'previous'],
    properties: {
      items: { type: 'array', items: item },
      count: { type: 'integer', minimum: 0 },
      next: { type: ['string', 'null'] },
      previous: { type: ['string', 'null'] },
    },
    additionalProperties: false,
  } as const;
}

export const secret = {
  type: 'object',
  required: ['key', 'tags', 'secret_type', 'value'],
  properties: {
    key: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    secret_type: { type: 'string', description: 'The type name' },
    value: { type: 'object' },
  },
  additionalProperties: false,
} as const;

export const tag = {
  type: 'object',
  required: ['name', 'slug', 'description', 'color'],
  properties: {
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'string' },
    color: { type: 'string' },
  },
  additionalProperties: false,
} as const;

export const tags = { type: 'array', items: tag } as const;

export const historyRecord = {
  type: 'object',
  required: ['action', 'user', 'timestamp', 'key', 'app', 'secret_type', 'tags', 'changes'],
  properties: {
    action: { type: 'string', enum: ['+', '~', '-'] },
    user: { type: 'string' },
    timestamp: dateTime,
    key: { type: 'string' },
    app: { type: ['string', 'null'] },
    secret_type: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    changes: { type: 'object' },
  },
  additionalProperties: false,
} as const;

export const history = {
  type: 'object',
  required: ['key', 'app', 'results', 'total_count', 'limit', 'offset', 'has_next', 'has_previous'],
  properties: {
    key: { type: 'string' },
    app: { type: ['string', 'null'] },
    results: { type: 'array', items: historyRecord },
    total_count: { type: 'integer', minimum: 0 },
    limit: { type: 'integer' },
    offset: { type: 'integer' },
    has_next: { type: 'boolean' },
    has_previous: { type: 'boolean' },
  },
  additionalProperties: false,
} as const;

export const action = {
  type: 'object',
  required: ['message', 'detail'],
  properties: { message: { type: 'string' }, detail: { type: 'string' } },
  additionalProperties: false,
} as const;
