import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

const site = { group: 'auth', scope: 'site' } as const;
const platform = { group: 'auth', scope: 'platform' } as const;
const throttled = {
  429: {
    description: 'Too many logins started from this address (or by this user): wait `retry_after` seconds',
  },
} as const;
const appPath = '/api/auth/social-apps/{id}/';

/** Social apps and headless provider login (doc 1; docs/social-login.md). */
export const socialRoutes = [
  {
    ...site,
    operationId: 'listSocialApps',
    permission: 'rule:site-visitor',
    method: 'GET',
    path: '/api/auth/social-apps/',
    summary: "The site's social apps, for login pages (no client id or secret)",
    query: schemas.listAppsQuery,
    responses: { 200: json('A page of social apps', schemas.appList), ...errors(400, 401, 404) },
  },
  {
    ...site,
    operationId: 'createSocialApp',
    permission: 'rule:site-owner',
    method: 'POST',
    path: '/api/auth/social-apps/',
    summary: 'Register a login provider for the site',
    body: schemas.createAppBody,
    responses: {
      201: json('The new social app (the secret echoed once)', schemas.appChanged),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'getSocialApp',
    permission: 'rule:site-signed-in',
    method: 'GET',
    path: appPath,
    params: schemas.appIdParams,
    summary: 'A social app (secret hidden)',
    responses: { 200: json('The social app', schemas.appDetail), ...errors(400, 401, 404) },
  },
  {
    ...site,
    operationId: 'updateSocialApp',
    permission: 'rule:site-owner',
    method: 'PATCH',
    path: appPath,
    params: schemas.appIdParams,
    summary: 'Change a social app; `settings` merges into the stored settings',
    body: schemas.updateAppBody,
    responses: {
      200: json('The changed social app (secret hidden)', schemas.appChanged),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'deleteSocialApp',
    permission: 'rule:site-owner',
    method: 'DELETE',
    path: appPath,
    params: schemas.appIdParams,
    summary: 'Delete a social app no user signs in with',
    responses: { 200: json('The social app is deleted', schemas.appDeleted), ...errors(400, 401, 403, 404) },
  },
  {
    ...site,
    operationId: 'checkSocialApp',
    permission: 'rule:site-owner',
    method: 'POST',
    path: '/api/auth/social-apps/{id}/check/',
    params: schemas.appIdParams,
    summary:
      "Check a saved social app against the network (not in the spec): discovery document, endpoints' addresses, key set",
    responses: {
      200: json('Each check, and whether all passed', schemas.appCheck),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...site,
    operationId: 'providerRedirect',
    permission: 'rule:site-visitor',
    method: 'GET',
    path: '/api/auth/{provider}/redirect/',
    params: schemas.providerParams,
    query: schemas.redirectQuery,
    summary:
      "The provider's authorization URL, with state, PKCE (S256) and nonce; with a token or session, the login " +
      'links the provider account to the signed-in user',
    responses: {
      200: json('Where to send the browser', schemas.redirectAnswer),
      ...errors(400, 401, 404, 502),
      ...throttled,
    },
  },
  {
    ...site,
    operationId: 'providerToken',
    permission: 'rule:site-visitor',
    method: 'POST',
    path: '/api/auth/{provider}/token/',
    params: schemas.providerParams,
    body: schemas.exchangeBody,
    summary: "Exchange the provider's callback code for our access and refresh tokens",
    responses: {
      200: json('Our token pair and the signed-in user', schemas.exchangeAnswer),
      ...errors(400, 401, 404, 409, 429, 502),
    },
  },
  {
    ...platform,
    operationId: 'listSocialAccounts',
    permission: 'authenticated',
    method: 'GET',
    path: '/api/auth/social-accounts/',
    query: schemas.socialAccountsQuery,
    summary: "The caller's linked provider accounts, in the order they were linked",
    responses: {
      200: json('A page of linked provider accounts', schemas.socialAccountList),
      ...errors(400, 401),
    },
  },
  {
    ...platform,
    operationId: 'deleteSocialAccount',
    permission: 'rule:own-social-account',
    method: 'DELETE',
    path: '/api/auth/social-accounts/{id}/',
    params: schemas.socialAccountParams,
    summary: "Unlink one of the caller's provider accounts (not the last way to sign in)",
    responses: {
      204: empty('The provider account no longer signs in as the caller'),
      ...errors(400, 401, 404, 409),
    },
  },
] as const satisfies readonly RouteDef[];
