import type { App } from '../accounts/model';
import type { RoleCatalog } from './catalog';
import type { AppRoleView, RoleRef, SiteRoleView, StoredAppRole, StoredRole, StoredSiteRole } from './model';

/** The representations of the spec, and its response envelopes for the roles group. */

/** An application role as clients see it; `apps` names the apps of the site by slug. */
export function appRoleView(
  role: StoredAppRole,
  catalog: RoleCatalog,
  apps: ReadonlyMap<string, App>,
): AppRoleView {
  const parent = catalog.parentOf(role);
  return {
    id: role.id,
    name: role.name,
    slug: role.slug,
    description: role.description,
    is_parent: catalog.isParent(role.slug),
    app_id: role.app_id,
    app_name: apps.get(role.app_slug)?.name ?? role.app_slug,
    app_slug: role.app_slug,
    parent_id: parent?.id ?? null,
    parent_role_slug: parent?.slug ?? null,
    created_at: role.created_at,
    updated_at: role.updated_at,
  };
}

export function siteRoleView(
  role: StoredSiteRole,
  catalog: RoleCatalog,
  apps: ReadonlyMap<string, App>,
): SiteRoleView {
  return {
    id: role.id,
    name: role.name,
    slug: role.slug,
    description: role.description,
    created_at: role.created_at,
    updated_at: role.updated_at,
    app_roles: catalog
      .bundled(role)
      .sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug))
      .map((bundled) => appRoleView(bundled, catalog, apps)),
  };
}

export const roleRef = (role: StoredRole): RoleRef => ({ name: role.name, slug: role.slug });

/** Single item: `{status, message, data}`. */
export const item = (message: string, data: unknown) => ({ status: 'success', message, data });

/** List: `{status, message, data: [...], total}`; `total` counts every match, not only this page. */
export const list = (message: string, data: unknown[], total: number) => ({
  status: 'success',
  message,
  data,
  total,
});

/** Action: `{message, detail}`. */
export const action = (message: string, detail: string) => ({ message, detail });
