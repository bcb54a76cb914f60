import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import { browserSession, credentialsBody, jwkSet, refreshBody, tokenPair } from './schemas';

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
    operationId: 'startBrowserSession',
    method: 'POST',
    path: '/api/auth/session/',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary:
      'Browser login: username (or e-mail) and password for a `sessionid` cookie (HttpOnly, SameSite=Lax); ' +
      'the request must come from a trusted Origin',
    body: credentialsBody,
    responses: {
      200: json('The signed-in user and the end of the session; the cookie is in Set-Cookie', browserSession),
      ...errors(400, 401, 403, 429),
    },
  },
  {
    operationId: 'endBrowserSession',
    method: 'DELETE',
    path: '/api/auth/session/',
    group: 'auth',
    permission: 'public',
    scope: 'platform',
    summary: 'Browser logout: ends the session of the `sessionid` cookie and clears the cookie',
    responses: {
      204: empty('The session is ended (or there was none) and the cookie cleared'),
      ...errors(403),
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
