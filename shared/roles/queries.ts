/** The read side of the roles group: role lists, role holders and a user's roles, with search, order and paging. */

import { usersById } from '../accounts/user-lookup';
import { matches, pageOf, sortBy } from '../api/listing';
import { uniqueKey } from '../store/store';
import { loadCatalog } from './catalog';
import { type RolesDeps, roleMemberships, userMemberships } from './memberships';
import { isActive, type RoleRef, type StoredRole } from './model';
import { roleRef } from './views';

export interface RoleListQuery {
  search?: string | undefined;
  ordering: string;
  page: number;
  page_size: number;
}

/** Roles whose name contains the search, in the requested order, one page of them and the number of matches. */
export function listRoles<T extends StoredRole>(
  roles: T[],
  query: RoleListQuery,
): { page: T[]; total: number } {
  const found = sortBy(
    roles.filter((role) => matches(query.search, role.name)),
    query.ordering,
    {
      name: (role) => role.name,
      created_at: (role) => role.created_at,
      updated_at: (role) => role.updated_at,
    },
    (role) => role.id,
  );
  return { page: pageOf(found, query.page, query.page_size), total: found.length };
}

export interface HolderQuery {
  search?: string | undefined;
  username?: string | undefined;
  include_expired: boolean;
  ordering: string;
  page: number;
  page_size?: number | undefined;
}

/**
 * A holder of a role as the role-centric listing shows it; `expires_at` (null: never) is an addition to the
 * spec's four fields (docs/api-decisions.md, "Role holders with their expiry").
 */
export interface Holder {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  expires_at: string | null;
}

/** The users holding a role (active memberships unless `include_expired`), searched, ordered and paged. */
export async function roleHolders(
  deps: RolesDeps,
  site: string,
  role: StoredRole,
  query: HolderQuery,
): Promise<{ page: Holder[]; total: number }> {
  const now = deps.clock();
  const memberships = (await roleMemberships(deps.store, site, role)).filter(
    (membership) => query.include_expired || isActive(membership, now),
  );
  const users = await usersById(
    deps.store,
    memberships.map((membership) => membership.user_id),
  );
  const exact = query.username === undefined ? undefined : uniqueKey(query.username);
  const rows = memberships.flatMap((membership) => {
    const user = users.get(membership.user_id);
    if (!user || !matches(query.search, user.username, user.email)) return [];
    if (exact !== undefined && uniqueKey(user.username) !== exact) return [];
    return [{ user, membership }];
  });
  const sorted = sortBy(
    rows,
    query.ordering,
    {
      username: (row) => row.user.username,
      email: (row) => row.user.email,
      first_name: (row) => row.user.first_name,
      last_name: (row) => row.user.last_name,
      created_at: (row) => row.membership.created_at,
      expires_at: (row) => row.membership.expires_at,
    },
    (row) => row.user.username,
  );
  const page = pageOf(sorted, query.page, query.page_size).map(({ user, membership }) => ({
    username: user.username,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    expires_at: membership.expires_at ?? null,
  }));
  return { page, total: sorted.length };
}

export interface UserRolesQuery {
  app?: string | undefined;
  search?: string | undefined;
  membership_type?: 'app_role' | 'site_role' | undefined;
  include_expired: boolean;
  ordering: string;
}

/**
 * The roles a user holds directly in a site, split by kind. With `app`: the app's application roles, and the site
 * roles that bundle at least one of them.
 */
export async function userRoles(
  deps: RolesDeps,
  site: string,
  userId: number,
  query: UserRolesQuery,
): Promise<{ app_roles: RoleRef[]; site_roles: RoleRef[] }> {
  const [catalog, memberships] = await Promise.all([
    loadCatalog(deps.store, site),
    userMemberships(deps.store, site, userId),
  ]);
  const now = deps.clock();
  const inApp = (role: StoredRole, app: string) =>
    role.kind === 'app_role'
      ? role.app_slug === app
      : catalog.bundled(role).some((bundled) => bundled.app_slug === app);
  const rows = memberships.flatMap((membership) => {
    const role = catalog.get(membership.role_slug);
    if (!role || role.id !== membership.role_id) return [];
    if (!query.include_expired && !isActive(membership, now)) return [];
    if (query.membership_type && role.kind !== query.membership_type) return [];
    if (!matches(query.search, role.name)) return [];
    if (query.app !== undefined && !inApp(role, query.app)) return [];
    return [{ role, membership }];
  });
  const sorted = sortBy(
    rows,
    query.ordering,
    {
      name: (row) => row.role.name,
      slug: (row) => row.role.slug,
      created_at: (row) => row.membership.created_at,
      expires_at: (row) => row.membership.expires_at,
    },
    (row) => row.role.slug,
  );
  return {
    app_roles: sorted.filter((row) => row.role.kind === 'app_role').map((row) => roleRef(row.role)),
    site_roles: sorted.filter((row) => row.role.kind === 'site_role').map((row) => roleRef(row.role)),
  };
}
