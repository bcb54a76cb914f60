import { slugMaxLength, slugPattern } from '../slug';

/** JSON Schemas of the events group: functions, subscriptions, and the `{success, message, data}` envelope. */

const slug = { type: 'string', pattern: slugPattern, maxLength: slugMaxLength } as const;
const id = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

export const appParams = {
  type: 'object',
  required: ['app_slug'],
  properties: { app_slug: { type: 'string', maxLength: slugMaxLength } },
} as const;

export const functionParams = {
  type: 'object',
  required: ['app_slug', 'function_id'],
  properties: { app_slug: { type: 'string', maxLength: slugMaxLength }, function_id: id },
} as const;

/** The event name is checked by the operation, so that an unknown one gets the spec's message. */
const eventName = { type: 'string', minLength: 1, maxLength: 64 } as const;

export const eventParams = {
  type: 'object',
  required: ['event_name'],
  properties: { event_name: eventName },
} as const;

export const appEventParams = {
  type: 'object',
  required: ['app_slug', 'event_name'],
  properties: { app_slug: { type: 'string', maxLength: slugMaxLength }, event_name: eventName },
} as const;

export const newFunctionBody = {
  type: 'object',
  required: ['name', 'target'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    slug,
    target: {
      type: 'string',
      minLength: 1,
      maxLength: 300,
      description:
        "Cloud: a Lambda function ARN of the allowed account named <prefix><site-slug>--<name>; locally: a module path in the site's folder (<site-slug>/) of the functions directory, or at its top level",
    },
  },
} as const;

export const subscribeBody = {
  type: 'object',
  required: ['function_id'],
  additionalProperties: false,
  properties: { function_id: id },
} as const;

/** `{success, message, data}` around a payload schema. */
export function envelope<const D>(data: D) {
  return {
    type: 'object',
    required: ['success', 'message', 'data'],
    properties: { success: { const: true }, message: { type: 'string' }, data },
  } as const;
}

export const registeredFunction = {
  type: 'object',
  required: ['id', 'name', 'slug', 'target', 'app_id', 'app_slug', 'app_name', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    slug: { type: 'string' },
    target: { type: 'string' },
    app_id: { type: 'integer' },
    app_slug: { type: 'string' },
    app_name: { type: 'string' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

export const functionList = {
  type: 'object',
  required: ['functions', 'total'],
  properties: { functions: { type: 'array', items: registeredFunction }, total: { type: 'integer' } },
} as const;

export const eventList = {
  type: 'object',
  required: ['events'],
  properties: { events: { type: 'array', items: { type: 'string' } } },
} as const;

/** The spec's event subscriber. */
export const subscriber = {
  type: 'object',
  required: [
    'id',
    'event',
    'function',
    'function_name',
    'function_slug',
    'app_name',
    'app_slug',
    'created_at',
    'updated_at',
  ],
  properties: {
    id: { type: 'integer' },
    event: { type: 'string' },
    function: { type: 'integer' },
    function_name: { type: 'string' },
    function_slug: { type: 'string' },
    app_name: { type: 'string' },
    app_slug: { type: 'string' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

export const appEvent = {
  type: 'object',
  required: ['event', 'app', 'total_subscribers', 'subscribers'],
  properties: {
    event: { type: 'string' },
    app: {
      type: 'object',
      required: ['id', 'name', 'slug'],
      properties: { id: { type: 'integer' }, name: { type: 'string' }, slug: { type: 'string' } },
    },
    total_subscribers: { type: 'integer' },
    subscribers: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'subscriber_id',
          'event',
          'function_id',
          'function_name',
          'function_slug',
          'app_id',
          'app_name',
          'app_slug',
          'created_at',
        ],
        properties: {
          subscriber_id: { type: 'integer' },
          event: { type: 'string' },
          function_id: { type: 'integer' },
          function_name: { type: 'string' },
          function_slug: { type: 'string' },
          app_id: { type: 'integer' },
          app_name: { type: 'string' },
          app_slug: { type: 'string' },
          created_at: timestamp,
        },
      },
    },
  },
} as const;

export const emptyData = { type: 'object', additionalProperties: false, properties: {} } as const;
