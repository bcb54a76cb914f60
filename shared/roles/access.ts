/**
 * Role checks for the rest of the platform (docs/roles.md, "Access checks").
 *
 * Inheritance runs downwards: holding an application role implies holding every role below it in the hierarchy
 * (a manager role includes the rights of the roles it manages), and holding a site role implies holding each
 * application role it bundles (and, through them, the roles below those). Only active memberships count: one whose
 * `expires_at` is at or before the time of the check does not.
 */

import { batchGet } from '../store/batch';
import type { Store } from '../store/store';
import { loadCatalog } from './catalog';
import { roleKeys } from './keys';
import { userMemberships } from './memberships';
import { isActive, type Membership } from './model';

/**
 * Whether a user holds a role of a site at time `at`: directly, through a site role that bundles it, or through a
 * role above it. False for a slug that names no role. Strongly consistent: a revocation counts at once.
 */
export async function holdsRole(
  store: Store,
  site: string,
  userId: number,
  roleSlug: string,
  at: Date,
): Promise<boolean> {
  const catalog = await loadCatalog(store, site);
  const grantors = catalog.grantors(roleSlug);
  if (grantors.length === 0) return false;
  const ids = new Map(grantors.map((role) => [role.slug, role.id]));
  const memberships = await batchGet<Membership>(
    store,
    grantors.map((role) => roleKeys.membership(site, role.slug, userId)),
  );
  return memberships.some(
    (membership) => ids.get(membership.role_slug) === membership.role_id && isActive(membership, at),
  );
}

/**
 * Every role slug a user holds in a site at time `at`, inherited ones included. Reads the user's memberships from
 * the index (eventually consistent); use `holdsRole` where a revocation must count at once.
 */
export async function heldRoles(store: Store, site: string, userId: number, at: Date): Promise<Set<string>> {
  const [catalog, memberships] = await Promise.all([
    loadCatalog(store, site),
    userMemberships(store, site, userId),
  ]);
  const direct = memberships.filter(
    (membership) => catalog.get(membership.role_slug)?.id === membership.role_id && isActive(membership, at),
  );
  return catalog.effective(direct.map((membership) => membership.role_slug));
}
