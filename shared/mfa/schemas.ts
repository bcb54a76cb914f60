/** Request and response schemas of second factors (JSON Schema; request types derive from them). */

import { user } from '../accounts/schemas';
import { browserSession } from '../auth/schemas';

const totpCode = { type: 'string', minLength: 1, maxLength: 16 } as const;

export const mfaStatus = {
  type: 'object',
  required: ['methods', 'totp', 'enrolling', 'recovery_codes_left'],
  properties: {
    methods: { type: 'array', items: { type: 'string', enum: ['totp'] } },
    totp: {
      anyOf: [
        {
          type: 'object',
          required: ['confirmed_at'],
          properties: { confirmed_at: { type: 'string', format: 'date-time' } },
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    },
    enrolling: { type: 'boolean' },
    recovery_codes_left: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
} as const;

export const totpEnrolment = {
  type: 'object',
  required: ['secret', 'otpauth_url', 'qr_svg'],
  properties: {
    secret: { type: 'string', description: 'The shared secret in base32, for typing into an app' },
    otpauth_url: { type: 'string', description: 'The otpauth://totp/ URI an app enrols from' },
    qr_svg: { type: 'string', description: 'The URI as a QR code, an SVG document' },
  },
  additionalProperties: false,
} as const;

export const confirmTotpBody = {
  type: 'object',
  required: ['code'],
  properties: { code: totpCode },
  additionalProperties: false,
} as const;

export const recoveryCodes = {
  type: 'object',
  required: ['recovery_codes'],
  properties: {
    recovery_codes: {
      type: 'array',
      items: { type: 'string' },
      description: 'Ten single-use codes, shown this once (only their hashes are kept)',
    },
  },
  additionalProperties: false,
} as const;

/** Removing the factor: the account's password or a current code. */
export const removeTotpBody = {
  type: 'object',
  properties: {
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    code: totpCode,
  },
  additionalProperties: false,
} as const;

export const secondFactorBody = {
  type: 'object',
  required: ['mfa_token'],
  properties: {
    mfa_token: { type: 'string', minLength: 1, maxLength: 4096 },
    code: totpCode,
    recovery_code: { type: 'string', minLength: 1, maxLength: 64 },
  },
  additionalProperties: false,
} as const;

/** The usual answer of a sign-in: the token pair and the user. */
export const signedIn = {
  type: 'object',
  required: ['access', 'refresh', 'user'],
  properties: { access: { type: 'string' }, refresh: { type: 'string' }, user },
  additionalProperties: false,
} as const;

export { browserSession };
