import type { Throttle } from './api';

/**
 * API Gateway throttling. These limits are per stage and shared by every caller (HTTP API has no per-client
 * limits; per-address limits need WAF, see docs/deploying.md): they cap what a flood can cost (Lambda, KMS
 * signatures, password hashing), not what one attacker may try. Password guessing is limited in the functions
 * (failure windows per account and per address). Values are requests per second and burst.
 */
export const defaultStageThrottle: Throttle = { rate: 500, burst: 1000 };

/** Route-table paths throttled on their own, lower than the stage: sign-in and the public endpoints. */
export const routeThrottles: Readonly<Record<string, Throttle>> = {
  // Each sign-in costs a password hash and a KMS signature.
  '/api/auth/jwt/token/': { rate: 50, burst: 100 },
  // The browser login: a password hash and a session write (logout shares the path).
  '/api/auth/session/': { rate: 50, burst: 100 },
  '/api/auth/jwt/refresh/': { rate: 100, burst: 200 },
  // Public and cacheable: clients should cache them, so a flood is abuse.
  '/.well-known/jwks.json': { rate: 50, burst: 100 },
  '/ninja-openapi.json': { rate: 10, burst: 20 },
  '/openapi.json': { rate: 10, burst: 20 },
  '/ninja-docs/': { rate: 20, burst: 50 },
  '/health': { rate: 10, burst: 20 },
};
