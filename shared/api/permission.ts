/**
 * The vocabulary of the route table's permissions: what a route may declare. What each one grants, and the
 * checks behind the rules, are the policy's (shared/policy/).
 */

/** The actions on a site (shared/policy/policy.ts says which site permissions grant each). */
export type SiteAction =
  | 'administer'
  | 'configure'
  | 'manage_users'
  | 'change'
  | 'delete'
  | 'view'
  | 'access';

/** The named rules (shared/policy/permissions.ts): checks that also read the request's path or body. */
export type RuleName =
  | 'self-or-superuser'
  | 'account-change'
  | 'own-roles-or-view'
  | 'secret-read'
  | 'secret-type-create'
  | 'site-visitor'
  | 'site-signed-in'
  | 'site-owner'
  | 'own-social-account'
  | 'api-key-revoke';

/**
 * Who may call a route. Every route of the route table declares one; the request pipeline enforces it before the
 * operation runs, so operations never ask the policy by hand.
 *
 *   public                 anyone, no token needed
 *   authenticated          any signed-in user
 *   superuser              superusers only
 *   organization:member    a member of the path's organization (`{org_slug}`), or a superuser
 *   organization:admin     that organization's owner or an admin, or a superuser
 *   organization:owner     that organization's owner, or a superuser
 *   site:<action>          the site action (above) on the request's site
 *   rule:<name>            a named rule (above) that also reads the request's path or body
 */
export type Permission =
  | 'public'
  | 'authenticated'
  | 'superuser'
  | 'organization:member'
  | 'organization:admin'
  | 'organization:owner'
  | `site:${SiteAction}`
  | `rule:${RuleName}`;
