import { errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import {
  detailAnswer,
  emailChangeBody,
  resetConfirmBody,
  resetRequestBody,
  signUpBody,
  verifyAddressBody,
} from './schemas';

const anyone = { group: 'auth', scope: 'platform', permission: 'public' } as const;

/**
 * Account recovery and sign-up, each through a link e-mailed to the address (docs/security.md): a forgotten
 * password, a new account, the confirmation of an address.
 */
export const recoveryRoutes = [
  {
    ...anyone,
    operationId: 'requestPasswordReset',
    method: 'POST',
    path: '/api/auth/password/reset/',
    summary:
      'Ask for a link to choose a new password; the same 202 whether or not the address has an account (the link goes to the address only)',
    body: resetRequestBody,
    responses: {
      202: json('Asked (a link was sent if the address has an active account)', detailAnswer),
      ...errors(400, 429),
    },
  },
  {
    ...anyone,
    operationId: 'confirmPasswordReset',
    method: 'POST',
    path: '/api/auth/password/reset/confirm/',
    summary:
      "Choose a new password with the reset link's token (once; it ends every other session and token of the account)",
    body: resetConfirmBody,
    responses: { 200: json('The password is changed', detailAnswer), ...errors(400, 429) },
  },
  {
    ...anyone,
    operationId: 'signUp',
    method: 'POST',
    path: '/api/auth/signup/',
    summary:
      'Make an account (only when the platform allows sign-up, SIGN_UP=open); the same 202 whether or not the address has one, and a link to confirm it',
    body: signUpBody,
    responses: {
      202: json('Received (a link was sent if the address is new or its sign-up unconfirmed)', detailAnswer),
      ...errors(400, 403, 429),
    },
  },
  {
    ...anyone,
    operationId: 'confirmEmailAddress',
    method: 'POST',
    path: '/api/auth/email/verify/',
    summary:
      "Confirm an account's e-mail address, or a change to a new one, with the token of the link e-mailed to it (once)",
    body: verifyAddressBody,
    responses: { 200: json('The address is confirmed', detailAnswer), ...errors(400) },
  },
  {
    group: 'auth',
    scope: 'platform',
    permission: 'authenticated',
    operationId: 'requestEmailChange',
    method: 'POST',
    path: '/api/auth/email/change/',
    summary:
      "Ask to change the signed-in user's e-mail address (with the current password); nothing changes until the link e-mailed to the new address is followed",
    body: emailChangeBody,
    responses: {
      202: json(
        'Asked (a link was sent to the new address, or its owner was told it has an account)',
        detailAnswer,
      ),
      ...errors(400, 401, 429),
    },
  },
] as const satisfies readonly RouteDef[];
