import type { EnvelopeStyle, JsonSchema, ResponseDef, Responses } from './route';

/**
 * Building blocks of the routes' `responses`: success bodies and the error statuses a route can return. An error
 * status carries no schema of its own: its body is the error envelope of the route's group (below), which the
 * OpenAPI document shows once per style as a component.
 */

/** The error statuses the platform answers with, and what each means in general. */
export const errorDescriptions = {
  400: 'The request is malformed or does not validate; the body names the fields',
  401: 'Not signed in, or the token is not valid (any more)',
  403: 'The caller may not do this',
  404: 'Not found, or not visible to the caller',
  409: 'Conflicts with the current state',
  410: 'No longer available',
  422: "Valid, but the table's definition or data does not allow it, or an event subscriber refused it",
  429: 'Too many failed sign-ins: wait `retry_after` seconds (also the Retry-After header)',
  502: 'A login provider could not be reached, or answered in a way that cannot be used',
} as const;

export type ErrorStatus = keyof typeof errorDescriptions;

/** The entries of the error statuses a route can return, each with the general description. */
export function errors(...statuses: ErrorStatus[]): Responses {
  return Object.fromEntries(statuses.map((status) => [status, { description: errorDescriptions[status] }]));
}

/** A JSON response with its schema. */
export function json<const S extends JsonSchema>(
  description: string,
  schema: S,
): ResponseDef & { schema: S } {
  return { description, schema };
}

/** A response without a body. */
export const empty = (description: string): ResponseDef => ({ description });

/** Whether a status is an error (its body is the group's envelope). */
export const isErrorStatus = (status: number): boolean => status >= 400;

const fieldErrors = {
  type: 'object',
  description:
    'Messages by field name (`a.b` for nested fields; `non_field_errors` for the request as a whole)',
  additionalProperties: { type: 'array', items: { type: 'string' } },
} as const;

const detailError = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: { type: 'string' },
    code: { type: 'string' },
    retry_after: { type: 'integer', description: 'Seconds to wait (429)' },
  },
  additionalProperties: true,
} as const;

/** The JSON Schema of each error-envelope style (shared/http/envelopes.ts), as OpenAPI components. */
export const envelopeSchemas: Record<EnvelopeStyle, { name: string; schema: JsonSchema }> = {
  detail: {
    name: 'DetailError',
    schema: {
      description: '`{detail}`; a validation error is `{<field>: [messages]}` instead',
      anyOf: [detailError, fieldErrors],
    },
  },
  roles: {
    name: 'RolesError',
    schema: {
      type: 'object',
      required: ['error', 'detail', 'code'],
      properties: { error: { type: 'string' }, detail: { type: 'string' }, code: { type: 'string' } },
      additionalProperties: true,
    },
  },
  secrets: {
    name: 'SecretsError',
    schema: {
      description:
        '`{error, detail}` (detail: text, the failing fields, or `{field, current, attempted}`); `{error}` alone ' +
        'for a refused type deletion; `{message, field}` for a name already taken',
      anyOf: [
        {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string' },
            detail: { anyOf: [{ type: 'string' }, fieldErrors, { type: 'object' }] },
          },
          additionalProperties: true,
        },
        {
          type: 'object',
          required: ['message', 'field'],
          properties: { message: { type: 'string' }, field: { type: 'string' } },
          additionalProperties: false,
        },
      ],
    },
  },
  data: {
    name: 'DataError',
    schema: {
      description: '`{error, detail}` (with `field` for constraint errors); validation: `{error, details}`',
      type: 'object',
      required: ['error'],
      properties: {
        error: { type: 'string' },
        detail: { type: 'string' },
        details: fieldErrors,
        field: { type: 'string' },
      },
      additionalProperties: true,
    },
  },
  events: {
    name: 'EventsError',
    schema: {
      type: 'object',
      required: ['success', 'message'],
      properties: { success: { const: false }, message: { type: 'string' } },
      additionalProperties: true,
    },
  },
};
