import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

/**
 * API keys of a site (docs/security.md, "API keys"). They belong to the accounts endpoint group, beside the site's
 * permissions. Any member of the organization may call them (others: 404); what the key may hold, and whose keys
 * the caller sees, is the policy's (shared/policy/policy.ts). An API key itself never passes an organization
 * permission, so no key creates, lists or revokes keys.
 */
const platform = { group: 'accounts', scope: 'platform', permission: 'organization:member' } as const;
const keysPath = '/api/cloud/organizations/{org_slug}/sites/{site_slug}/api-keys/';

export const apiKeyRoutes = [
  {
    ...platform,
    operationId: 'createApiKey',
    method: 'POST',
    path: keysPath,
    summary:
      "Create an API key of the site, within the caller's own rights (an addition to the spec); the key is shown once",
    body: schemas.newApiKeyBody,
    responses: {
      201: json('The new key, with the key itself', schemas.createdApiKey),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...platform,
    operationId: 'listApiKeys',
    method: 'GET',
    path: keysPath,
    summary: "The site's API keys: all of them for those who administer the site, else the caller's own",
    responses: {
      200: json('The keys, oldest first', { type: 'array', items: schemas.apiKey }),
      ...errors(401, 403, 404),
    },
  },
  {
    ...platform,
    operationId: 'revokeApiKey',
    permission: 'rule:api-key-revoke',
    method: 'DELETE',
    path: `${keysPath}{key_id}/`,
    summary: 'Revoke an API key: refused from the next request on',
    params: schemas.apiKeyParams,
    responses: { 204: empty('Revoked'), ...errors(400, 401, 403, 404) },
  },
] as const satisfies readonly RouteDef[];
