/** Request and response schemas of account recovery (JSON Schema; request types derive from them). */

export const resetRequestBody = {
  type: 'object',
  required: ['email'],
  properties: { email: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' } },
  additionalProperties: false,
} as const;

export const resetConfirmBody = {
  type: 'object',
  required: ['token', 'password'],
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 256 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  additionalProperties: false,
} as const;

/** A sentence for the person, and nothing else. */
export const detailAnswer = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
  additionalProperties: false,
} as const;

export const signUpBody = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email: resetRequestBody.properties.email,
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    first_name: { type: 'string', maxLength: 150 },
    last_name: { type: 'string', maxLength: 150 },
  },
  additionalProperties: false,
} as const;

export const verifyAddressBody = {
  type: 'object',
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: 256 } },
  additionalProperties: false,
} as const;

export const emailChangeBody = {
  type: 'object',
  required: ['email', 'current_password'],
  properties: {
    email: resetRequestBody.properties.email,
    current_password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  additionalProperties: false,
} as const;
