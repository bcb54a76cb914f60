/** Request and response schemas of API keys (JSON Schema; the request types derive from them). */

import { sitePermissions } from '../accounts/model';
import { idSchema } from '../api/numbers';
import { namePattern } from '../slug';

const dateTime = { type: 'string', format: 'date-time' } as const;
const uuid = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The `{key_id}` of a key's path: its id, a uuid. */
export const apiKeyParams = {
  type: 'object',
  properties: { key_id: { type: 'string', pattern: uuid, maxLength: 36 } },
} as const;

const permissions = {
  type: 'array',
  uniqueItems: true,
  minItems: 1,
  maxItems: sitePermissions.length,
  items: { type: 'string', enum: [...sitePermissions] },
} as const;

/** Application roles of the site, by slug (at most 20). */
const appRoles = {
  type: 'array',
  uniqueItems: true,
  maxItems: 20,
  items: { type: 'string', minLength: 1, maxLength: 300 },
} as const;

export const newApiKeyBody = {
  type: 'object',
  required: ['name', 'permissions'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: namePattern },
    permissions,
    app_roles: appRoles,
    expires_at: dateTime,
  },
  additionalProperties: false,
} as const;

const apiKeyProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  prefix: { type: 'string', description: 'The first characters of the key, to tell keys apart' },
  site: { type: 'string' },
  permissions,
  app_roles: { type: 'array', items: { type: 'string' } },
  created_by: {
    type: 'object',
    required: ['id', 'username'],
    properties: { id: idSchema, username: { type: 'string' } },
    additionalProperties: false,
  },
  created_at: dateTime,
  last_used_at: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'Written at most once a minute',
  },
  expires_at: { type: ['string', 'null'], format: 'date-time' },
} as const;

const apiKeyRequired = [
  'id',
  'name',
  'prefix',
  'site',
  'permissions',
  'app_roles',
  'created_by',
  'created_at',
  'last_used_at',
  'expires_at',
] as const;

/** A key as it is shown after its creation: never the key itself. */
export const apiKey = {
  type: 'object',
  required: apiKeyRequired,
  properties: apiKeyProperties,
  additionalProperties: false,
} as const;

/** A new key: its view and, this once, the key (`tbk_…`). */
export const createdApiKey = {
  type: 'object',
  required: [...apiKeyRequired, 'key'],
  properties: {
    ...apiKeyProperties,
    key: { type: 'string', description: 'The key: shown only in this response' },
  },
  additionalProperties: false,
} as const;
