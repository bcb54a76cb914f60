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
  /** The signed-in user; for an API key, the key's creator (whose current rights cap the key's). */
  user: User | null;
  organizationRole: OrganizationRole | null;
  permissions: ReadonlySet<SitePermission>;
  /**
   * An API key's own permissions: set when the principal is a key. An action is then allowed only when the key's
   * permissions grant it AND its creator may take it now (the key never holds more than its creator).
   */
  keyPermissions?: ReadonlySet<SitePermission> | undefined;
}

/**
 * The site permissions an API key may hold: everything but managing users and administering the site, so that no
 * key invites people, assigns roles or grants permissions (docs/security.md, "API keys").
 */
export const keyPermissions: readonly SitePermission[] = [
  'access_site',
  'view_site',
  'change_site',
  'delete_site',
  'manage_site',
];

/** The site actions a permission grants (`change_site`: change, view, access). */
export function actionsGrantedBy(permission: SitePermission): SiteAction[] {
  return (Object.keys(siteActions) as SiteAction[]).filter((action) =>
    siteActions[action].includes(permission),
  );
}

/**
 * Whether the user of `access` may put `permission` on an API key of its site: a permission keys may hold, and
 * every action it grants one the user may take now (a key never holds more than its creator could grant).
 */
export function mayGrantToKey(access: SiteAccess, permission: SitePermission): boolean {
  return (
    keyPermissions.includes(permission) &&
    actionsGrantedBy(permission).every((action) => can({ ...access, keyPermissions: undefined }, action))
  );
}

/**
 * Whether the user of `access` may put any application role of the site on a key: those who may assign roles to
 * anyone (`manage_users`); everyone else only the roles they hold themselves.
 */
export function mayGrantAnyAppRole(access: SiteAccess): boolean {
  return can({ ...access, keyPermissions: undefined }, 'manage_users');
}

/** Whether the user of `access` sees and revokes every API key of its site, not only its own (`administer`). */
export function managesAllKeys(access: SiteAccess): boolean {
  return can({ ...access, keyPermissions: undefined }, 'administer');
}

/** Whether the user of `access` may see and revoke a key of its site created by `createdBy`. */
export function managesKey(access: SiteAccess, createdBy: number): boolean {
  return (access.user?.is_active === true && access.user.id === createdBy) || managesAllKeys(access);
}

export function isOrganizationAdmin(role: OrganizationRole | null | undefined): boolean {
  return role === 'owner' || role === 'admin';
}

/**
 * Whether the user of `access` may take `action` on its site; for an API key, whether the key's permissions grant
 * it and its creator may take it now.
 */
export function can(access: SiteAccess, action: SiteAction): boolean {
  if (!access.user?.is_active) return false;
  const key = access.keyPermissions;
  if (key && !siteActions[action].some((permission) => key.has(permission))) return false;
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
