/** Response schemas of the meta group. */

/** The OpenAPI document itself: described, not repeated. */
export const openApiDocument = {
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
  additionalProperties: true,
} as const;

/** A page, script, style sheet or image, sent as it is. */
export const text = { type: 'string' } as const;

const check = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok', 'error', 'skipped'] }, error: { type: 'string' } },
  additionalProperties: false,
} as const;

export const healthReport = {
  type: 'object',
  required: ['status', 'version', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    version: { type: 'string' },
    checks: {
      type: 'object',
      required: ['dynamodb', 'postgres'],
      properties: { dynamodb: check, postgres: check },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const;
