import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

const organizationScoped = {
  group: 'invitations',
  scope: 'platform',
  permission: 'organization:admin',
} as const;
const anyone = { group: 'invitations', scope: 'platform', permission: 'public' } as const;

/**
 * Invitations: the organization's owner and admins (and superusers) manage them; the invitee reads and accepts one
 * with its token alone (docs/authorization.md).
 */
export const invitationRoutes = [
  {
    ...organizationScoped,
    operationId: 'createInvitation',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/invitations/',
    summary: 'Invite an e-mail address to the organization; the invitation e-mail is sent',
    body: schemas.newInvitationBody,
    responses: {
      201: json('The new invitation', schemas.invitation),
      ...errors(400, 401, 403, 404, 422),
    },
  },
  {
    ...organizationScoped,
    operationId: 'listInvitations',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/invitations/',
    summary: "The organization's invitations (pending: invitee__is_active=false; accepted: true)",
    query: schemas.listInvitationsQuery,
    responses: {
      200: json('A page of invitations', schemas.invitationPage),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...organizationScoped,
    operationId: 'getInvitation',
    method: 'GET',
    path: '/api/cloud/organizations/{org_slug}/invitations/{uuid}/',
    summary: 'One invitation of the organization',
    responses: { 200: json('The invitation', schemas.invitation), ...errors(401, 403, 404) },
  },
  {
    ...organizationScoped,
    operationId: 'deleteInvitation',
    method: 'DELETE',
    path: '/api/cloud/organizations/{org_slug}/invitations/{uuid}/',
    summary: 'Cancel an invitation',
    responses: { 204: empty('Cancelled'), ...errors(401, 403, 404) },
  },
  {
    ...organizationScoped,
    operationId: 'resendInvitation',
    method: 'POST',
    path: '/api/cloud/organizations/{org_slug}/invitations/{invitation_id}/resend/',
    summary:
      "Send a pending invitation again, with a new token and expiry; `{invitation_id}` is the invitation's uuid (the specification's `{user_id}` segment: invitees are not shown before acceptance); a 400 names `user_id`, as the specification's does",
    params: schemas.resendParams,
    responses: { 200: json('Sent again', schemas.resendResult), ...errors(400, 401, 403, 404) },
  },
  {
    ...anyone,
    operationId: 'getInvitationDetails',
    method: 'GET',
    path: '/api/cloud/invitations/{token}/details/',
    summary:
      'The invitation of a token (no sign-in: the token, which only the invitation e-mail carries, is the credential; 410 once accepted or expired)',
    responses: {
      200: json('The invitation', schemas.publicInvitation),
      ...errors(404, 410, 429),
    },
  },
  {
    ...anyone,
    operationId: 'acceptInvitation',
    method: 'POST',
    path: '/api/cloud/invitations/{token}/accept/',
    summary:
      "Accept an invitation: set the invitee's names and password (ending the account's other sessions) and apply its configuration; a deactivated account is refused with 403",
    body: schemas.acceptBody,
    responses: {
      200: json('Accepted', schemas.acceptResult),
      ...errors(400, 403, 404, 409, 410, 422, 429),
    },
  },
] as const satisfies readonly RouteDef[];
