import { ConflictError, PermissionDeniedError, ValidationError } from '../errors';
import { onConditionFailure } from '../store/writes';
import { keys } from './keys';
import type { Organization, OrganizationMember, OrganizationRole, User } from './model';
import { ensureOwnedCounter, getMembership, ownedOrganizationsQuota } from './organizations';
import { giveBackOne, hasRoom, sendCounted, takeOne } from './quotas';
import { type AccountsDeps, getUser } from './users';

/**
 * Ownership rules. An organization has exactly one owner (its `owner_id`, with the membership role `owner`), so it
 * never loses its owner: the role `owner` is neither given nor taken through the members endpoint, only handed on
 * by a transfer, which the owner or a superuser makes.
 */
export const transferHint =
  'The owner changes only through POST /api/cloud/organizations/{org_slug}/transfer-ownership/.';

/**
 * Refuses a members-endpoint change that would give or take the role `owner`: 403 to admins (they may not touch
 * the owner), 400 naming `role` to the owner and superusers (who are told to transfer instead).
 */
export function assertRoleChangeAllowed(
  caller: User,
  callerRole: OrganizationRole | null,
  current: OrganizationMember | undefined,
  role: OrganizationRole,
): void {
  if (current?.role !== 'owner' && role !== 'owner') return;
  if (!caller.is_superuser && callerRole !== 'owner') throw new PermissionDeniedError();
  throw ValidationError.field('role', transferHint, 'owner_role');
}

/**
 * Makes member `toUserId` the owner and the previous owner an admin, in one transaction, which also moves the
 * organization from the previous owner's count of owned organizations to the new owner's: a new owner who owns
 * `limit` organizations already (ORGANIZATIONS_PER_USER) is refused, 400 naming `user_id`, unless a superuser.
 */
export async function transferOwnership(
  deps: AccountsDeps,
  organization: Organization,
  toUserId: number,
  limit: number,
): Promise<Organization> {
  const target = await getMembership(deps.store, organization.slug, toUserId);
  const targetUser = target && (await getUser(deps.store, toUserId));
  if (!target || !targetUser)
    throw ValidationError.field('user_id', 'The user is not a member of this organization.', 'not_a_member');
  if (target.role === 'owner' || toUserId === organization.owner_id) {
    throw ValidationError.field('user_id', 'The user owns this organization already.', 'already_owner');
  }
  const quota = ownedOrganizationsQuota(targetUser, limit);
  const quotaExceeded = () =>
    ValidationError.field(
      'user_id',
      `The user has reached the limit of ${limit} organizations.`,
      'organization_quota',
    );
  const [owned] = await Promise.all([
    ensureOwnedCounter(deps.store, toUserId),
    ensureOwnedCounter(deps.store, organization.owner_id),
  ]);
  if (!hasRoom(quota, owned)) throw quotaExceeded();
  const table = deps.store.table;
  const setRole = (userId: number, role: OrganizationRole, condition: string) => ({
    Update: {
      TableName: table,
      Key: keys.member(organization.slug, userId),
      UpdateExpression: 'SET #role = :role',
      ConditionExpression: condition,
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':role': role, ':owner': 'owner' },
    },
  });
  await onConditionFailure(
    sendCounted(deps.store, [
      {
        Update: {
          TableName: table,
          Key: keys.organization(organization.slug),
          UpdateExpression: 'SET owner_id = :to',
          ConditionExpression: 'owner_id = :from',
          ExpressionAttributeValues: { ':to': toUserId, ':from': organization.owner_id },
        },
      },
      setRole(toUserId, 'owner', 'attribute_exists(PK) AND #role <> :owner'),
      setRole(organization.owner_id, 'admin', '#role = :owner'),
      takeOne(table, quota),
      giveBackOne(table, keys.ownedOrganizations(organization.owner_id)),
    ]),
    (failed) => {
      if (failed.length === 1 && failed[0] === 3) throw quotaExceeded();
      // Another change (a parallel transfer, a removed member) won the race: nothing was written.
      throw new ConflictError({
        code: 'ownership_changed',
        message: 'The organization changed meanwhile: read it again and retry.',
      });
    },
  );
  return { ...organization, owner_id: toUserId };
}
