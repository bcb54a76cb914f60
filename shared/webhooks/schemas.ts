import { slugMaxLength } from '../slug';

/** JSON Schemas of the webhooks routes (docs/events.md, "Record events and webhooks"). */

const id = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;
const appSlug = { type: 'string', maxLength: slugMaxLength } as const;

export const recordEvents = ['POST_RECORD_CREATE', 'POST_RECORD_UPDATE', 'POST_RECORD_DELETE'] as const;

/** At most this many endpoints per app, tables per endpoint. */
export const webhookLimits = { endpointsPerApp: 100, tablesPerEndpoint: 50, urlLength: 2000 } as const;

export const appParams = {
  type: 'object',
  required: ['app_slug'],
  properties: { app_slug: appSlug },
} as const;

export const webhookParams = {
  type: 'object',
  required: ['app_slug', 'webhook_id'],
  properties: { app_slug: appSlug, webhook_id: id },
} as const;

const url = { type: 'string', minLength: 1, maxLength: webhookLimits.urlLength } as const;
const events = {
  type: 'array',
  minItems: 1,
  maxItems: recordEvents.length,
  uniqueItems: true,
  items: { type: 'string', enum: recordEvents },
} as const;
const tables = {
  type: 'array',
  minItems: 1,
  maxItems: webhookLimits.tablesPerEndpoint,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 63 },
} as const;

export const newWebhookBody = {
  type: 'object',
  required: ['url', 'events', 'tables'],
  additionalProperties: false,
  properties: { url, events, tables },
} as const;

export const webhookPatchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { url, events, tables, enabled: { type: 'boolean' } },
} as const;

export const replayBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: { event_id: { type: 'string', format: 'uuid' }, since: timestamp },
} as const;

export const deliveriesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
} as const;

export const webhook = {
  type: 'object',
  required: [
    'id',
    'url',
    'events',
    'tables',
    'enabled',
    'disabled_reason',
    'app_id',
    'app_slug',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'integer' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    tables: { type: 'array', items: { type: 'string' } },
    enabled: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'] },
    app_id: { type: 'integer' },
    app_slug: { type: 'string' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

export const newWebhook = {
  ...webhook,
  required: [...webhook.required, 'secret'],
  properties: {
    ...webhook.properties,
    secret: { type: 'string', description: 'The signing secret (Standard Webhooks, whsec_…): shown once' },
  },
} as const;

export const webhookList = {
  type: 'object',
  required: ['webhooks', 'total'],
  properties: { webhooks: { type: 'array', items: webhook }, total: { type: 'integer' } },
} as const;

const attempt = {
  type: 'object',
  required: ['time', 'status_code', 'latency_ms', 'error', 'event_id'],
  properties: {
    time: timestamp,
    status_code: { type: ['integer', 'null'] },
    latency_ms: { type: 'integer' },
    error: { type: ['string', 'null'] },
    event_id: { type: 'string' },
  },
} as const;

const delivery = {
  type: 'object',
  required: [
    'id',
    'event_id',
    'event',
    'table',
    'record_key',
    'status',
    'attempts',
    'next_attempt_at',
    'created_at',
    'last_status',
    'last_error',
  ],
  properties: {
    id: { type: 'integer' },
    event_id: { type: 'string' },
    event: { type: 'string' },
    table: { type: 'string' },
    record_key: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    next_attempt_at: { type: ['string', 'null'] },
    created_at: timestamp,
    last_status: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
  },
} as const;

export const deliveryReport = {
  type: 'object',
  required: ['attempts', 'deliveries'],
  properties: { attempts: { type: 'array', items: attempt }, deliveries: { type: 'array', items: delivery } },
} as const;

export const replayResult = {
  type: 'object',
  required: ['replayed'],
  properties: { replayed: { type: 'integer' } },
} as const;

export const emptyData = { type: 'object', additionalProperties: false } as const;

/** The payload every delivery carries (also the OpenAPI document's `webhooks`). */
export const recordEventPayload = {
  type: 'object',
  required: ['id', 'event', 'time', 'site', 'app', 'table', 'key', 'record', 'previous', 'actor'],
  properties: {
    id: {
      type: 'string',
      format: 'uuid',
      description: 'The event id (also the webhook-id header): deduplicate by it',
    },
    event: { type: 'string', enum: recordEvents },
    time: timestamp,
    site: { type: 'string' },
    app: { type: 'string' },
    table: { type: 'string' },
    key: { type: 'string' },
    record: {
      type: ['object', 'null'],
      description: 'The record after the change (null after a hard delete)',
    },
    previous: { type: ['object', 'null'], description: 'The record before the change (updates and deletes)' },
    deletion: { type: 'string', enum: ['soft', 'hard'], description: 'Deletes only' },
    actor: {
      type: ['object', 'null'],
      description:
        "Who made the change: a user (`{type: 'user', id, username}`) or an API key (`{type: 'api_key', id, created_by: {id, username}}`)",
      properties: {
        type: { type: 'string', enum: ['user', 'api_key'] },
        id: { type: ['integer', 'string'] },
        username: { type: 'string' },
        created_by: {
          type: 'object',
          properties: { id: { type: 'integer' }, username: { type: 'string' } },
        },
      },
    },
  },
} as const;
