import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

const platform = { group: 'auth', scope: 'platform' } as const;
const throttled = {
  429: { description: 'Too many wrong codes for this account: wait `Retry-After` seconds' },
} as const;

/** Second factors: TOTP enrolment and removal, and the second step of a sign-in (issue 39, items 5 and 6). */
export const mfaRoutes = [
  {
    ...platform,
    operationId: 'getMfaStatus',
    permission: 'authenticated',
    method: 'GET',
    path: '/api/auth/mfa/',
    summary:
      "The caller's second factors: which are on, an enrolment under way, how many recovery codes are left",
    responses: { 200: json('The second factors of the caller', schemas.mfaStatus), ...errors(401) },
  },
  {
    ...platform,
    operationId: 'enrolTotp',
    permission: 'authenticated',
    method: 'POST',
    path: '/api/auth/mfa/totp/',
    summary:
      'Start a TOTP enrolment: a new secret (kept encrypted), its otpauth:// URI and a QR code (SVG); ' +
      'nothing changes at sign-in until a code confirms it',
    responses: {
      200: json('The secret to enrol in an authenticator app', schemas.totpEnrolment),
      ...errors(401, 409),
    },
  },
  {
    ...platform,
    operationId: 'confirmTotp',
    permission: 'authenticated',
    method: 'POST',
    path: '/api/auth/mfa/totp/confirm/',
    body: schemas.confirmTotpBody,
    summary:
      'Confirm the enrolment with a current code: the factor is on; answers ten recovery codes, shown once',
    responses: {
      200: json('The recovery codes (each single use)', schemas.recoveryCodes),
      ...errors(400, 401, 409),
      ...throttled,
    },
  },
  {
    ...platform,
    operationId: 'removeTotp',
    permission: 'authenticated',
    method: 'DELETE',
    path: '/api/auth/mfa/totp/',
    body: schemas.removeTotpBody,
    summary:
      'Remove the TOTP factor and its recovery codes, with the password or a current code; every other session ' +
      'and token of the account ends',
    responses: {
      204: empty('The factor is removed'),
      ...errors(400, 401, 404),
      ...throttled,
    },
  },
  {
    ...platform,
    operationId: 'authenticateMfa',
    permission: 'public',
    method: 'POST',
    path: '/api/auth/mfa/authenticate/',
    body: schemas.secondFactorBody,
    summary:
      'Second step of a sign-in answered 401 `mfa_required`: the `mfa_token` and a TOTP `code` or a ' +
      '`recovery_code`, for an access and a refresh token',
    responses: {
      200: json('An access and a refresh token, and the user', schemas.signedIn),
      ...errors(400, 401),
      ...throttled,
    },
  },
  {
    ...platform,
    operationId: 'authenticateMfaSession',
    permission: 'public',
    method: 'POST',
    path: '/api/auth/session/mfa/',
    body: schemas.secondFactorBody,
    summary:
      'Second step of a browser login answered 401 `mfa_required`: a `sessionid` cookie, as the password login ' +
      'gives; the request must come from a trusted Origin',
    responses: {
      200: json(
        'The signed-in user and the end of the session; the cookie is in Set-Cookie',
        schemas.browserSession,
      ),
      ...errors(400, 401, 403),
      ...throttled,
    },
  },
] as const satisfies readonly RouteDef[];
