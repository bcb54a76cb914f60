import type { OrganizationRole, Site, SitePermission, User } from '../accounts/model';
import type { SiteAction } from '../api/permission';

/**
 * The one place that answers "may this principal do this here?" (docs/authorization.md).
 *
 * Site actions and what grants them:
 *   administer    admin_site
 *   configure     manage_site        (table schemas, secret types, roles, functions, subscriptions)
 *   manage_users  manage_site_users  (memberships, role assignments, invitations)
 *   change        change_site        (create and update content)
 *   delete        delete_site        (delete content)
 *   view          view_site, or any permission that changes or administers something
 *   access        any site permission at all
 * Superusers and the owner or admins of the site's organization may do everything; `admin_site` implies every
 * action on its site.
 */
/** The site permissions that grant each site action. */
export const siteActions: Record<SiteAction, readonly SitePermission[]> = {
  administer: ['admin_site'],
  configure: ['manage_site', 'admin_site'],
  manage_users: ['manage_site_users', 'admin_site'],
  change: ['change_site', 'admin_site'],
  delete: ['delete_site', 'admin_site'],
  view: ['view_site', 'change_site', 'delete_site', 'manage_site', 'manage_site_users', 'admin_site'],
  access: [
    'access_site',
    'view_site',
    'change_site',
    'delete_site',
    'manage_site',
    'manage_site_users',
    'admin_site',
  ],
};

/** What one user holds on one site, resolved once per request. */
export interface SiteAccess {
  site: Site;
  user: User | null;
  organizationRole: OrganizationRole | null;
  permissions: ReadonlySet<SitePermission>;
}

export function isOrganizationAdmin(role: OrganizationRole | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/** Whether the user of `access` may take `action` on its site. */
export function can(access: SiteAccess, action: SiteAction): boolean {
  if (!access.user?.is_active) return false;
  if (access.user.is_superuser || isOrganizationAdmin(access.organizationRole)) return true;
  return siteActions[action].some((permission) => access.permissions.has(permission));
}

/** Every site action the user of `access` may take, in the order of `siteActions` (the caller's own view). */
export function allowedActions(access: SiteAccess): SiteAction[] {
  return (Object.keys(siteActions) as SiteAction[]).filter((action) => can(access, action));
}

/** Whether a user may administer an organization (superusers, its owner and its admins). */
export function canAdministerOrganization(user: User, role: OrganizationRole | null | undefined): boolean {
  return user.is_superuser || isOrganizationAdmin(role);
}
