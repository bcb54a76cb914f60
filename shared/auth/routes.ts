import type { RouteDef } from '../http/route';

const credentials = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 254 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  additionalProperties: false,
} as const;

export const authRoutes: RouteDef[] = [
  {
    operationId: 'obtainToken',
    method: 'POST',
    path: '/api/auth/jwt/token/',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary: 'JWT login: username (or e-mail) and password for an access and a refresh token',
    body: credentials,
  },
  {
    operationId: 'refreshToken',
    method: 'POST',
    path: '/api/auth/jwt/refresh/',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary: 'A new access token for a refresh token',
    body: {
      type: 'object',
      required: ['refresh'],
      properties: { refresh: { type: 'string', minLength: 1, maxLength: 4096 } },
      additionalProperties: false,
    },
  },
  {
    operationId: 'jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary: 'The public keys that verify the platform JWTs',
  },
];
