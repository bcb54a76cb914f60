import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { User } from '../accounts/model';
import { type Clock, iso } from '../clock';
import type { Logger } from '../log';
import { backoff, batchDelete, batchGet, chunks, transactionLimit } from '../store/batch';
import { queryAll, type Store } from '../store/store';
import { conditionFailures } from '../store/writes';
import { roleGsi, roleKeys } from './keys';
import { isActive, type Membership, type StoredRole } from './model';

export interface RolesDeps {
  store: Store;
  clock: Clock;
  /** Where a deletion's deferred cleanup reports a failure (shared/roles/cleanup.ts). */
  log?: Logger | undefined;
}

/** One user and one role: the unit of assignment and revocation. */
export interface Grant {
  user: User;
  role: StoredRole;
}

export interface AssignResult {
  /** New memberships, and expired ones replaced by active ones. */
  assigned: Grant[];
  /** Already held (an active membership of the same role): left as they are. */
  skipped: Grant[];
  /** The role was deleted while the request ran. */
  failed: Grant[];
}

export interface RevokeResult {
  revoked: Grant[];
  /** Not held: nothing to remove. */
  skipped: Grant[];
}

const grantKey = (grant: Grant) => `${grant.role.slug}\u0000${grant.user.id}`;
const membershipKey = (membership: Membership) => `${membership.role_slug}\u0000${membership.user_id}`;

function distinct(grants: readonly Grant[]): Grant[] {
  return [...new Map(grants.map((grant) => [grantKey(grant), grant])).values()];
}

const attempts = 5;

/** The stored memberships of these grants, by grant key (whatever their state or role id). */
async function existing(
  store: Store,
  site: string,
  grants: readonly Grant[],
): Promise<Map<string, Membership>> {
  const found = await batchGet<Membership>(
    store,
    grants.map((grant) => roleKeys.membership(site, grant.role.slug, grant.user.id)),
  );
  return new Map(found.map((membership) => [membershipKey(membership), membership]));
}

/** Whether a stored membership is an assignment of this very role that counts at `at`. */
function holds(membership: Membership | undefined, role: StoredRole, at: Date): boolean {
  return membership !== undefined && membership.role_id === role.id && isActive(membership, at);
}

/**
 * Assigns roles to users. A grant whose user already holds the role (active) is skipped; an expired membership (or
 * one left behind by a deleted role of the same slug) is replaced by an active one. Writes go in transactions of at
 * most 100 items per role, each checking that the role still exists and that no membership was assigned meanwhile,
 * so that repeating a request is harmless.
 */
export async function assign(
  deps: RolesDeps,
  site: string,
  grants: readonly Grant[],
  options: { expiresAt: string | null; by: User },
): Promise<AssignResult> {
  const now = deps.clock();
  const at = iso(now);
  const unique = distinct(grants);
  const stored = await existing(deps.store, site, unique);
  const result: AssignResult = { assigned: [], skipped: [], failed: [] };
  const byRole = new Map<string, Grant[]>();
  for (const grant of unique) {
    if (holds(stored.get(grantKey(grant)), grant.role, now)) {
      result.skipped.push(grant);
      continue;
    }
    byRole.set(grant.role.slug, [...(byRole.get(grant.role.slug) ?? []), grant]);
  }
  for (const roleGrants of byRole.values()) {
    for (const chunk of chunks(roleGrants, transactionLimit - 1)) {
      await assignChunk(deps, site, chunk, { ...options, at }, result);
    }
  }
  return result;
}

async function assignChunk(
  deps: RolesDeps,
  site: string,
  chunk: Grant[],
  options: { expiresAt: string | null; by: User; at: string },
  result: AssignResult,
): Promise<void> {
  let pending = chunk;
  for (let attempt = 0; pending.length > 0; attempt++) {
    const role = (pending[0] as Grant).role;
    if (attempt === attempts) throw new Error(`Assigning ${role.slug} kept conflicting with other writes`);
    if (attempt > 0) await backoff(attempt);
    try {
      await deps.store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: deps.store.table,
                Key: roleKeys.role(site, role.slug),
                ConditionExpression: 'id = :id',
                ExpressionAttributeValues: { ':id': role.id },
              },
            },
            ...pending.map((grant) => ({
              Put: {
                TableName: deps.store.table,
                Item: membershipItem(site, grant, options),
                ConditionExpression: 'attribute_not_exists(PK) OR role_id <> :id OR expires_at <= :now',
                ExpressionAttributeValues: { ':id': role.id, ':now': options.at },
              },
            })),
          ],
        }),
      );
      result.assigned.push(...pending);
      return;
    } catch (error) {
      const failed = conditionFailures(error);
      if (!failed) throw error;
      if (failed.includes(0)) {
        result.failed.push(...pending);
        return;
      }
      // Assigned by a concurrent request since we looked: held now, so skipped, and the rest tried again.
      const taken = new Set(failed.map((index) => index - 1));
      result.skipped.push(...pending.filter((_, i) => taken.has(i)));
      pending = pending.filter((_, i) => !taken.has(i));
    }
  }
}

function membershipItem(
  site: string,
  grant: Grant,
  options: { expiresAt: string | null; by: User; at: string },
): Record<string, unknown> {
  const membership: Membership = {
    site,
    role_slug: grant.role.slug,
    role_id: grant.role.id,
    role_kind: grant.role.kind,
    app_slug: grant.role.kind === 'app_role' ? grant.role.app_slug : null,
    user_id: grant.user.id,
    assigned_by: options.by.id,
    created_at: options.at,
    updated_at: options.at,
    expires_at: options.expiresAt,
  };
  return {
    ...roleKeys.membership(site, grant.role.slug, grant.user.id),
    GSI1PK: roleGsi.userRoles(site, grant.user.id),
    GSI1SK: roleGsi.userRoleSort(grant.role.slug),
    ...membership,
  };
}

/** Revokes roles from users (hard delete, in batches); grants that are not held are skipped. */
export async function revoke(deps: RolesDeps, site: string, grants: readonly Grant[]): Promise<RevokeResult> {
  const unique = distinct(grants);
  const stored = await existing(deps.store, site, unique);
  const result: RevokeResult = { revoked: [], skipped: [] };
  for (const grant of unique) {
    const membership = stored.get(grantKey(grant));
    if (membership?.role_id === grant.role.id) result.revoked.push(grant);
    else result.skipped.push(grant);
  }
  // Stored leftovers of a deleted role of the same slug go too: they never counted.
  await batchDelete(
    deps.store,
    unique
      .filter((grant) => stored.has(grantKey(grant)))
      .map((grant) => roleKeys.membership(site, grant.role.slug, grant.user.id)),
  );
  return result;
}

/**
 * Sets the expiry of existing memberships of one role (null: permanent), which reactivates expired ones. All or
 * nothing: returns the users that hold no membership of the role, and changes nothing, when there are any.
 */
export async function setExpiry(
  deps: RolesDeps,
  site: string,
  role: StoredRole,
  users: readonly User[],
  expiresAt: string | null,
): Promise<{ missing: User[] }> {
  const grants = distinct(users.map((user) => ({ user, role })));
  const stored = await existing(deps.store, site, grants);
  const missing = grants.filter((grant) => stored.get(grantKey(grant))?.role_id !== role.id);
  if (missing.length > 0) return { missing: missing.map((grant) => grant.user) };
  const at = iso(deps.clock());
  for (const chunk of chunks(grants, transactionLimit)) {
    try {
      await deps.store.doc.send(
        new TransactWriteCommand({
          TransactItems: chunk.map((grant) => ({
            Update: {
              TableName: deps.store.table,
              Key: roleKeys.membership(site, role.slug, grant.user.id),
              UpdateExpression: 'SET expires_at = :expires, updated_at = :now',
              ConditionExpression: 'role_id = :id',
              ExpressionAttributeValues: { ':expires': expiresAt, ':now': at, ':id': role.id },
            },
          })),
        }),
      );
    } catch (error) {
      const failed = conditionFailures(error);
      if (!failed?.length) throw error;
      return { missing: failed.flatMap((index) => chunk[index]?.user ?? []) };
    }
  }
  return { missing: [] };
}

/** Every stored membership of a role that belongs to it (expired ones included), strongly consistent. */
export async function roleMemberships(store: Store, site: string, role: StoredRole): Promise<Membership[]> {
  const stored = await queryAll<Membership>(store, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': roleKeys.members(site, role.slug) },
    ConsistentRead: true,
  });
  return stored.filter((membership) => membership.role_id === role.id);
}

/** Every stored membership of a user in a site (GSI1; expired ones and leftovers of deleted roles included). */
export async function userMemberships(store: Store, site: string, userId: number): Promise<Membership[]> {
  return queryAll<Membership>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': roleGsi.userRoles(site, userId) },
  });
}

/**
 * Replaces the holders of a role: memberships of users outside `users` are removed, the others assigned (an
 * active membership is kept as it is).
 */
export async function replaceMembers(
  deps: RolesDeps,
  site: string,
  role: StoredRole,
  users: readonly User[],
  options: { by: User },
): Promise<AssignResult & { removed: number }> {
  const keep = new Set(users.map((user) => user.id));
  const stored = await queryAll<Membership>(deps.store, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': roleKeys.members(site, role.slug) },
    ConsistentRead: true,
  });
  const removed = stored.filter((membership) => !keep.has(membership.user_id));
  await batchDelete(
    deps.store,
    removed.map((membership) => roleKeys.membership(site, role.slug, membership.user_id)),
  );
  const result = await assign(
    deps,
    site,
    users.map((user) => ({ user, role })),
    { expiresAt: null, by: options.by },
  );
  return { ...result, removed: removed.filter((membership) => membership.role_id === role.id).length };
}
