/**
 * The roles domain: application roles (hierarchical, scoped to one app), site roles (flat bundles of application
 * roles across apps) and memberships (one user holding one role, optionally until an expiry time).
 */

/** The two kinds of role; every role slug of a site names exactly one role of one kind. */
export type RoleKind = 'app_role' | 'site_role';

interface StoredRoleBase {
  id: number;
  site: string;
  slug: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
  /** Optimistic-concurrency counter: bumped by every write to the role, and by a change to its children. */
  version: number;
}

export interface StoredAppRole extends StoredRoleBase {
  kind: 'app_role';
  app_id: number;
  app_slug: string;
  parent_slug: string | null;
  parent_id: number | null;
}

/** One application role in a site role's bundle; the id tells a role from a later one that reuses its slug. */
export interface BundledRole {
  slug: string;
  id: number;
}

export interface StoredSiteRole extends StoredRoleBase {
  kind: 'site_role';
  bundle: BundledRole[];
}

export type StoredRole = StoredAppRole | StoredSiteRole;

/** A user holding a role. `role_id` pins the role, so a membership never carries over to a new role of the same slug. */
export interface Membership {
  site: string;
  role_slug: string;
  role_id: number;
  role_kind: RoleKind;
  /** The app of an application role; null for a site role. */
  app_slug: string | null;
  user_id: number;
  /**
   * The id of the user who assigned the role: the number only, which outlives that user's erasure without naming
   * the person (docs/lifecycle.md). Items written by earlier versions also carry `assigned_by_username`.
   */
  assigned_by: number;
  created_at: string;
  updated_at: string;
  /** ISO 8601 UTC; null means permanent. */
  expires_at: string | null;
}

/** Whether a membership counts at `at`: not expired (an expiry at exactly `at` has passed). */
export function isActive(membership: Pick<Membership, 'expires_at'>, at: Date): boolean {
  return membership.expires_at === null || Date.parse(membership.expires_at) > at.getTime();
}

/** How an error message names a role of either kind. */
export function describeRole(role: StoredRole): string {
  return role.kind === 'site_role'
    ? `the site role "${role.name}"`
    : `the role "${role.name}" of the app "${role.app_slug}"`;
}

/** The application role representation of the spec. */
export interface AppRoleView {
  id: number;
  name: string;
  slug: string;
  description: string;
  is_parent: boolean;
  app_id: number;
  app_name: string;
  app_slug: string;
  parent_id: number | null;
  parent_role_slug: string | null;
  created_at: string;
  updated_at: string;
}

/** The site role representation of the spec. */
export interface SiteRoleView {
  id: number;
  name: string;
  slug: string;
  description: string;
  created_at: string;
  updated_at: string;
  app_roles: AppRoleView[];
}

/** `{name, slug}`: how hierarchy and user-centric listings name a role. */
export interface RoleRef {
  name: string;
  slug: string;
}
