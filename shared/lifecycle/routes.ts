import { userIdParams } from '../accounts/schemas';
import { empty, errors, json } from '../api/responses';
import type { RouteDef } from '../api/route';

const platform = { group: 'accounts', scope: 'platform' } as const;
const site = { group: 'accounts', scope: 'site' } as const;

/** What a deletion whose cleanup is still under way answers (202). */
const underWay = {
  type: 'object',
  required: ['detail'],
  additionalProperties: false,
  properties: { detail: { type: 'string' } },
} as const;

/**
 * The name of what is deleted, again: a site, an organization or an account goes with everything under it, so the
 * call names it twice (the path, and `confirm`: the slug, or the username) and a mistaken id erases nothing.
 */
const confirmQuery = {
  type: 'object',
  required: ['confirm'],
  additionalProperties: false,
  properties: { confirm: { type: 'string', minLength: 1, maxLength: 150 } },
} as const;

/** Deletions (docs/lifecycle.md): each answers 204 when its cleanup finished, 202 when some is left for later. */
export const deletionRoutes = [
  {
    ...site,
    operationId: 'deleteApp',
    permission: 'site:administer',
    method: 'DELETE',
    path: '/api/apps/{app_slug}/',
    summary: 'Delete an app with its data tables, secrets, functions, subscriptions and roles',
    responses: {
      202: json('Deleted; the cleanup of what it held goes on', underWay),
      204: empty('Deleted, and everything it held removed'),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...platform,
    operationId: 'deleteSite',
    query: confirmQuery,
    permission: 'organization:owner',
    method: 'DELETE',
    path: '/api/cloud/organizations/{org_slug}/sites/{site_slug}/',
    summary:
      "Delete a site with all its apps' tables (its PostgreSQL schema), roles, secrets, functions and permissions",
    responses: {
      202: json('Deleted; the cleanup of what it held goes on', underWay),
      204: empty('Deleted, and everything it held removed'),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...platform,
    operationId: 'deleteOrganization',
    query: confirmQuery,
    permission: 'organization:owner',
    method: 'DELETE',
    path: '/api/cloud/organizations/{org_slug}/',
    summary: 'Delete an organization (confirm: its slug) with its sites, members, groups and invitations',
    responses: {
      202: json('Deleted; the cleanup of what it held goes on', underWay),
      204: empty('Deleted, and everything it held removed'),
      ...errors(400, 401, 403, 404),
    },
  },
  {
    ...platform,
    operationId: 'deleteUser',
    query: confirmQuery,
    permission: 'rule:self-or-superuser',
    method: 'DELETE',
    path: '/api/cloud/users/{user_id}/',
    summary:
      "Erase a user's account (one's own, or any for superusers); refused while it owns an organization",
    params: userIdParams,
    responses: {
      202: json('Erased; the cleanup of its memberships goes on', underWay),
      204: empty('Erased, and its memberships, permissions and links removed'),
      ...errors(400, 401, 403, 404, 409),
    },
  },
] as const satisfies readonly RouteDef[];
