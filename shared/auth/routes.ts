import { errors, json } from '../http/responses';
import type { RouteDef } from '../http/route';
import { credentialsBody, jwkSet, refreshBody, tokenPair } from './schemas';

export const authRoutes = [
  {
    operationId: 'obtainToken',
    method: 'POST',
    path: '/api/auth/jwt/token/',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary: 'JWT login: username (or e-mail) and password for an access and a refresh token',
    body: credentialsBody,
    responses: {
      200: json('An access and a refresh token', tokenPair),
      ...errors(400, 401, 429),
    },
  },
  {
    operationId: 'refreshToken',
    method: 'POST',
    path: '/api/auth/jwt/refresh/',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary: 'A new access token for a refresh token',
    body: refreshBody,
    responses: {
      200: json('A new access token and the refresh token that replaces the one presented', tokenPair),
      ...errors(400, 401),
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
    responses: { 200: json('The JSON Web Key Set', jwkSet) },
  },
] as const satisfies readonly RouteDef[];
