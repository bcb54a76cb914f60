import type { paths } from '../../../../client/src/index';
/**
 * Access of a site (docs/roles.md): an app's roles as a hierarchy, the site's roles, who holds a role (with
 * expiry), and bulk assignment and revocation for several people at once, in batches with progress.
 */
export interface AppRole {
  id: number;
  name: string;
  slug: string;
  description: string;
  parent_role_slug: string | null;
}

export interface SiteRole {
  id: number;
  name: string;
  slug: string;
  app_roles: AppRole[];
}

/** A holder of a role as the API lists them (`GET /api/roles/{role_slug}/users`), and whether its expiry passed. */
export type Holder = NonNullable<
  paths['/api/roles/{role_slug}/users']['get']['responses'][200]['content']['application/json']['data']
>[number] & { expired: boolean };

export const enc = encodeURIComponent;

/** Usernames per bulk request: the API takes 100; smaller batches show progress and keep each request short. */
export const batchSize = 20;

/** An instant of a `datetime-local` field as the API wants it (RFC 3339, UTC), or null for "never". */
export function expiry(value: string): string | null {
  return value ? new Date(value).toISOString() : null;
}
