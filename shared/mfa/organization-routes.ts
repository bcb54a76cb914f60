import { organization } from '../accounts/schemas';
import { errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';

export const requireMfaBody = {
  type: 'object',
  required: ['require_mfa'],
  properties: { require_mfa: { type: 'boolean' } },
  additionalProperties: false,
} as const;

/** An organization's `require_mfa` (issue 39, item 8), served by the accounts group beside the organization. */
export const organizationMfaRoutes = [
  {
    group: 'accounts',
    scope: 'platform',
    operationId: 'setOrganizationRequireMfa',
    permission: 'organization:admin',
    method: 'PUT',
    path: '/api/cloud/organizations/{org_slug}/require-mfa/',
    body: requireMfaBody,
    summary:
      "Whether the organization's members need a second factor on its routes and its sites' data; turning it " +
      'on needs a factor of the caller',
    responses: {
      200: json('The organization', organization),
      ...errors(400, 401, 403, 404, 409),
    },
  },
] as const satisfies readonly RouteDef[];
