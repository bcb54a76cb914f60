/** Request and response schemas of the auth group (JSON Schema; request types derive from them). */

import { user } from '../accounts/schemas';

export const credentialsBody = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  additionalProperties: false,
} as const;

export const refreshBody = {
  type: 'object',
  required: ['refresh'],
  properties: { refresh: { type: 'string', minLength: 1, maxLength: 4096 } },
  additionalProperties: false,
} as const;

/** An access token and the refresh token of the session (a new one on each refresh: rotation). */
export const tokenPair = {
  type: 'object',
  required: ['access', 'refresh'],
  properties: { access: { type: 'string' }, refresh: { type: 'string' } },
  additionalProperties: false,
} as const;

export const jwkSet = {
  type: 'object',
  required: ['keys'],
  properties: {
    keys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kty', 'kid'],
        properties: { kty: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string' } },
        additionalProperties: true,
      },
    },
  },
  additionalProperties: false,
} as const;

/** The answer of a browser login: the signed-in user and when the session ends (the id travels in the cookie). */
export const browserSession = {
  type: 'object',
  required: ['user', 'expires_at'],
  properties: { user, expires_at: { type: 'string', format: 'date-time' } },
  additionalProperties: false,
} as const;
