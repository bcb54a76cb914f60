import { errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import { detailAnswer, resetConfirmBody, resetRequestBody } from './schemas';

const anyone = { group: 'auth', scope: 'platform', permission: 'public' } as const;

/** Account recovery: a forgotten password, by a link e-mailed to the account's address (docs/security.md). */
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
] as const satisfies readonly RouteDef[];
