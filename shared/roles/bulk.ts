import type { User } from '../accounts/model';
import { distinctUsers, resolveUsers } from '../accounts/user-lookup';
import { loadCatalog } from './catalog';
import { assign, type Grant, type RolesDeps, revoke } from './memberships';
import type { StoredRole } from './model';

/** One pair the bulk endpoints could not handle, with the spec's exact error texts. */
export interface BulkFailure {
  username: string;
  role: string;
  error: 'User not found' | 'Role not found';
}

export interface BulkOutcome {
  /** Pairs assigned or revoked. */
  done: number;
  /** Pairs already in the wanted state: counted as successes. */
  skipped: number;
  failures: BulkFailure[];
}

interface Pairs {
  grants: Grant[];
  failures: BulkFailure[];
  /** The request's spelling of each grant's username and role, for failures found while writing. */
  spelling: Map<Grant, { username: string; role: string }>;
}

/**
 * Every (username, role) pair of a bulk request: the grants to act on, and a failure for each pair whose user
 * ('User not found', which wins when both are missing) or role ('Role not found') does not exist in the site.
 */
async function pairs(deps: RolesDeps, site: string, roles: readonly string[], usernames: readonly string[]) {
  const [catalog, users] = await Promise.all([
    loadCatalog(deps.store, site),
    resolveUsers(deps.store, usernames),
  ]);
  const out: Pairs = { grants: [], failures: [], spelling: new Map() };
  for (const username of new Set(usernames)) {
    const user = users.found.get(username);
    for (const slug of new Set(roles)) {
      const role = catalog.get(slug);
      if (!user) out.failures.push({ username, role: slug, error: 'User not found' });
      else if (!role) out.failures.push({ username, role: slug, error: 'Role not found' });
      else {
        const grant = { user, role };
        out.grants.push(grant);
        out.spelling.set(grant, { username, role: slug });
      }
    }
  }
  return out;
}

/** Assigns every role to every user (`expires_at` for all pairs); existing active assignments are skipped. */
export async function bulkAssign(
  deps: RolesDeps,
  site: string,
  input: { roles: readonly string[]; usernames: readonly string[]; expiresAt: string | null; by: User },
): Promise<BulkOutcome> {
  const found = await pairs(deps, site, input.roles, input.usernames);
  const result = await assign(deps, site, found.grants, { expiresAt: input.expiresAt, by: input.by });
  const failures = [...found.failures];
  for (const grant of result.failed) {
    const spelled = found.spelling.get(grant);
    if (spelled) failures.push({ ...spelled, error: 'Role not found' });
  }
  return { done: result.assigned.length, skipped: result.skipped.length, failures };
}

/** Revokes every role from every user; pairs that are not assigned are skipped. */
export async function bulkRevoke(
  deps: RolesDeps,
  site: string,
  input: { roles: readonly string[]; usernames: readonly string[] },
): Promise<BulkOutcome> {
  const found = await pairs(deps, site, input.roles, input.usernames);
  const result = await revoke(deps, site, found.grants);
  return { done: result.revoked.length, skipped: result.skipped.length, failures: found.failures };
}

/** Users for a request that must name existing users only: the users, or the usernames that name nobody. */
export async function existingUsers(
  deps: RolesDeps,
  usernames: readonly string[],
): Promise<{ users: User[]; missing: string[] }> {
  const resolved = await resolveUsers(deps.store, usernames);
  return { users: distinctUsers(resolved.found), missing: resolved.missing };
}

/** Roles for a request that must name existing roles only: the roles, or the slugs that name none. */
export async function existingRoles(
  deps: RolesDeps,
  site: string,
  slugs: readonly string[],
): Promise<{ roles: StoredRole[]; missing: string[] }> {
  const catalog = await loadCatalog(deps.store, site);
  const distinct = [...new Set(slugs)];
  const missing = distinct.filter((slug) => !catalog.get(slug));
  return { roles: distinct.flatMap((slug) => catalog.get(slug) ?? []), missing };
}
