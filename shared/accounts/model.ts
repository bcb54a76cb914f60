/** The accounts domain: users, organizations, sites (tenants), site permissions, apps and groups. */

export interface User {
  id: number;
  uuid: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  is_superuser: boolean;
  /**
   * Whether someone proved the address is theirs (an invitation's or a reset's link was followed, or a provider the
   * platform trusts vouched for it). Stored users made before it existed lack it, which counts as not proven
   * (`publicUser` says false). What was attached to the account before the first proof ends with it
   * (shared/social/proof.ts).
   */
  email_verified: boolean;
  date_joined: string;
  last_login: string | null;
}

/** A stored user: the public fields plus the password hash, which never leaves the accounts module. */
export interface StoredUser extends User {
  password_hash: string | null;
  /** Raised by every password change and deactivation; tokens carry it and die when it moves (0 when absent). */
  token_version?: number;
  /** Made by its own sign-up (shared/recovery/sign-up.ts): no password sign-in before the address is proven. */
  self_registered?: boolean;
}

/**
 * The user of an authenticated request: the public fields and the token version its tokens must carry. Responses
 * show users through `publicUser`, which leaves the version out.
 */
export interface SessionUser extends User {
  token_version: number;
}

export type OrganizationRole = 'owner' | 'admin' | 'member';

export interface Organization {
  /** Its members must have a second factor to reach its routes and data (shared/policy/second-factor.ts). */
  require_mfa?: boolean | undefined;
  id: number;
  slug: string;
  name: string;
  owner_id: number;
  created_at: string;
}

export interface OrganizationMember {
  organization: string;
  user_id: number;
  role: OrganizationRole;
  joined_at: string;
}

export interface Site {
  /** A copy of its organization's `require_mfa`, so the request pipeline's one read of the site knows it. */
  require_mfa?: boolean | undefined;
  id: number;
  slug: string;
  name: string;
  organization_id: number;
  organization_slug: string;
  created_at: string;
}

export const sitePermissions = [
  'access_site',
  'view_site',
  'change_site',
  'delete_site',
  'manage_site',
  'manage_site_users',
  'admin_site',
] as const;

export type SitePermission = (typeof sitePermissions)[number];

export interface SitePermissionGrant {
  site: string;
  user_id: number;
  permissions: SitePermission[];
  updated_at: string;
}

export interface App {
  id: number;
  slug: string;
  name: string;
  description: string;
  site: string;
  created_at: string;
}

/** The fields of a user that may be shown to clients. */
export function publicUser(user: User): User {
  return {
    id: user.id,
    uuid: user.uuid,
    username: user.username,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    is_active: user.is_active,
    is_superuser: user.is_superuser,
    email_verified: user.email_verified === true,
    date_joined: user.date_joined,
    last_login: user.last_login,
  };
}
