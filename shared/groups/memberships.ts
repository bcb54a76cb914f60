import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { AccountsDeps } from '../accounts/users';
import { iso } from '../clock';
import { ConflictError, ValidationError } from '../errors';
import { failedConditions, isConditionalCheckFailure, queryAll, type Store, strip } from '../store/store';
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
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
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
          { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      }),
    );
  } catch (error) {
    const failed = failedConditions(error);
    if (failed?.includes(0)) throw notAMember();
    if (failed?.includes(1))
      throw new ConflictError({ code: 'group_changed', message: 'The group was deleted meanwhile.' });
    if (failed?.includes(2))
      return { membership: await existingMembership(deps.store, group, userId), added: false };
    throw error;
  }
  const { PK: _pk, SK: _sk, ...membership } = item;
  return { membership, added: true };
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
  try {
    await store.doc.send(
      new DeleteCommand({
        TableName: store.table,
        Key: groupKeys.membership(group.organization_slug, group.id, userId),
        ConditionExpression: 'attribute_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
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
