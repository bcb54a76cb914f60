import { linkedPageOf, pagedQuery } from '../accounts/schemas';
import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';
import * as schemas from './schemas';

/**
 * Organization groups. They belong to the accounts endpoint group (one Lambda): the organization's member list
 * shows them. Members of the organization read them; its owner and admins (and superusers) change them.
 */
const platform = { group: 'accounts', scope: 'platform' } as const;
const groups = '/api/cloud/organizations/{org_slug}/groups/';
const oneGroup = `${groups}{group_slug}/`;

export const organizationGroupRoutes = [
  {
    ...platform,
    operationId: 'listGroups',
    permission: 'organization:member',
    method: 'GET',
    path: groups,
    summary: 'Groups of an organization',
    query: pagedQuery,
    responses: { 200: json('A page of groups', linkedPageOf(schemas.group)), ...errors(400, 401, 404) },
  },
  {
    ...platform,
    operationId: 'createGroup',
    permission: 'organization:admin',
    method: 'POST',
    path: groups,
    summary: 'Create a group; its name (ignoring case) and slug are unique in the organization',
    body: schemas.newGroupBody,
    responses: { 201: json('The new group', schemas.group), ...errors(400, 401, 403, 404, 409) },
  },
  {
    ...platform,
    operationId: 'getGroup',
    permission: 'organization:member',
    method: 'GET',
    path: oneGroup,
    summary: 'A group of an organization',
    params: schemas.groupParams,
    responses: { 200: json('The group', schemas.group), ...errors(400, 401, 404) },
  },
  {
    ...platform,
    operationId: 'renameGroup',
    permission: 'organization:admin',
    method: 'PATCH',
    path: oneGroup,
    summary: 'Rename a group (its slug stays)',
    params: schemas.groupParams,
    body: schemas.groupChangesBody,
    responses: { 200: json('The renamed group', schemas.group), ...errors(400, 401, 403, 404, 409) },
  },
  {
    ...platform,
    operationId: 'deleteGroup',
    permission: 'organization:admin',
    method: 'DELETE',
    path: oneGroup,
    summary: 'Delete a group and its memberships',
    params: schemas.groupParams,
    responses: { 204: empty('Deleted'), ...errors(400, 401, 403, 404, 409) },
  },
  {
    ...platform,
    operationId: 'listGroupMembers',
    permission: 'organization:member',
    method: 'GET',
    path: `${oneGroup}members/`,
    summary: 'Members of a group',
    params: schemas.groupParams,
    query: pagedQuery,
    responses: {
      200: json('A page of group members', linkedPageOf(schemas.groupMember)),
      ...errors(400, 401, 404),
    },
  },
  {
    ...platform,
    operationId: 'addGroupMember',
    permission: 'organization:admin',
    method: 'POST',
    path: `${oneGroup}members/`,
    summary: 'Add a member of the organization to a group',
    params: schemas.groupParams,
    body: schemas.groupMemberBody,
    responses: {
      200: json('The user was in the group already', schemas.groupMember),
      201: json('Added', schemas.groupMember),
      ...errors(400, 401, 403, 404, 409),
    },
  },
  {
    ...platform,
    operationId: 'removeGroupMember',
    permission: 'organization:admin',
    method: 'DELETE',
    path: `${oneGroup}members/{user_id}/`,
    summary: 'Remove a user from a group',
    params: schemas.groupMemberParams,
    responses: { 204: empty('Removed'), ...errors(400, 401, 403, 404) },
  },
] as const satisfies readonly RouteDef[];
