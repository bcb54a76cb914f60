import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { AccountsDeps } from '../accounts/users';
import { iso } from '../clock';
import { ConflictError, ValidationError } from '../errors';
import { queryAll, type Store, strip } from '../store/store';
import { onConditionFailure, putNew, rethrow, transact } from '../store/writes';
import { type Group, type GroupMembership, groupKeys } from './model';

const notAMember = () =>
  ValidationError.field('user_id', 'The user is not a member of this organization.', 'not_a_member');

/** The membership item of a user in a group. */
export function membershipItem(group: { id: number; slug: string }, org: string, userId: number, at: string) {
  const membership: GroupMembership = {
    group_id: group.id,
    group_slug: group.slug,
    user_id: userId,
    added_at: at,
  };
  return { ...groupKeys.membership(org, group.id, userId), ...membership };
}

/**
 * Adds a member of the organization to a group, in one transaction that checks both: the user is a member of the
 * organization (400 naming user_id otherwise) and the group still exists. Adding a user already in the group
 * changes nothing; `added` says which happened.
 */
export async function addGroupMember(
  deps: AccountsDeps,
  group: Group,
  userId: number,
): Promise<{ membership: GroupMembership; added: boolean }> {
  const org = group.organization_slug;
  const table = deps.store.table;
  const item = membershipItem(group, org, userId, iso(deps.clock()));
  const { PK: _pk, SK: _sk, ...membership } = item;
  return onConditionFailure(
    transact(deps.store, [
      {
        ConditionCheck: {
          TableName: table,
          Key: keys.member(org, userId),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      {
        ConditionCheck: {
          TableName: table,
          Key: groupKeys.group(org, group.slug),
          ConditionExpression: 'id = :id',
          ExpressionAttributeValues: { ':id': group.id },
        },
      },
      putNew(table, item),
    ]).then(() => ({ membership, added: true })),
    async (failed, error) => {
      if (failed.includes(0)) throw notAMember();
      if (failed.includes(1))
        throw new ConflictError({ code: 'group_changed', message: 'The group was deleted meanwhile.' });
      if (failed.includes(2))
        return { membership: await existingMembership(deps.store, group, userId), added: false };
      return rethrow(error);
    },
  );
}

async function existingMembership(store: Store, group: Group, userId: number): Promise<GroupMembership> {
  const result = await store.doc.send(
    new GetCommand({
      TableName: store.table,
      Key: groupKeys.membership(group.organization_slug, group.id, userId),
      ConsistentRead: true,
    }),
  );
  // Removed again between the two requests: the caller retries.
  if (!result.Item)
    throw new ConflictError({ code: 'group_changed', message: 'The group changed meanwhile: retry.' });
  return strip<GroupMembership>(result.Item);
}

/** Removes a user from a group; false when the user is not in it. */
export async function removeGroupMember(store: Store, group: Group, userId: number): Promise<boolean> {
  return onConditionFailure(
    store.doc
      .send(
        new DeleteCommand({
          TableName: store.table,
          Key: groupKeys.membership(group.organization_slug, group.id, userId),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      )
      .then(() => true),
    () => false,
  );
}

/** The memberships of one group, by user id (strongly consistent). */
export async function groupMemberships(store: Store, group: Group): Promise<GroupMembership[]> {
  return queryAll<GroupMembership>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: {
      ':pk': `ORG#${group.organization_slug}`,
      ':prefix': groupKeys.membersOf(group.id),
    },
    ConsistentRead: true,
  });
}

/** Every group membership of an organization (the member list shows each member's groups). */
export async function organizationGroupMemberships(store: Store, org: string): Promise<GroupMembership[]> {
  return queryAll<GroupMembership>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org}`, ':prefix': groupKeys.membershipPrefix },
  });
}
