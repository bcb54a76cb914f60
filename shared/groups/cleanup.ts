import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Logger } from '../log';
import { chunks } from '../store/batch';
import { queryAll, type Store } from '../store/store';
import { type GroupMembership, groupKeys } from './model';

/**
 * The memberships of deleted groups. A group's deletion writes a tombstone (`GROUPGONE#<id>` in the organization's
 * partition) in the same transaction that removes the group; the memberships go afterwards, and the tombstone
 * last. A crash in between leaves the tombstone, and the organization's next group write (a create or a delete)
 * finishes the work first. Until then the leftovers are invisible: they are keyed by the group's id, which no later
 * group takes, and every read goes through the group (docs/organizations.md, "Groups").
 */

const inFlight = 25;

type CleanupDeps = { store: Store; log?: Logger | undefined };

/** The tombstone of a group, to put in the deletion's transaction. */
export function groupTombstone(table: string, org: string, groupId: number, at: string) {
  return { Put: { TableName: table, Item: { ...groupKeys.gone(org, groupId), group_id: groupId, at } } };
}

/** Removes the memberships of one deleted group, then its tombstone. Idempotent. */
async function finishCleanup(store: Store, org: string, groupId: number): Promise<void> {
  const memberships = await queryAll<GroupMembership>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org}`, ':prefix': groupKeys.membersOf(groupId) },
    ConsistentRead: true,
  });
  for (const chunk of chunks(memberships, inFlight)) {
    await Promise.all(
      chunk.map((membership) =>
        store.doc.send(
          new DeleteCommand({
            TableName: store.table,
            Key: groupKeys.membership(org, groupId, membership.user_id),
          }),
        ),
      ),
    );
  }
  await store.doc.send(new DeleteCommand({ TableName: store.table, Key: groupKeys.gone(org, groupId) }));
}

/**
 * Runs the cleanups of these deleted groups. A failure is logged and left to the organization's next group write:
 * the deletion itself has committed, and its tombstone keeps the work owed.
 */
export async function cleanUpGroups(
  deps: CleanupDeps,
  org: string,
  groupIds: readonly number[],
): Promise<void> {
  for (const groupId of groupIds) {
    try {
      await finishCleanup(deps.store, org, groupId);
    } catch (error) {
      deps.log?.warn('group memberships left for the next group write of the organization', {
        organization: org,
        group_id: groupId,
        error: error instanceof Error ? error.message : String(error),
      });
      return;
    }
  }
}

/** Finishes what crashed deletions of the organization's groups left (one Query of its tombstones). */
export async function finishPendingGroups(deps: CleanupDeps, org: string): Promise<void> {
  const pending = await queryAll<{ group_id: number }>(deps.store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': `ORG#${org}`, ':prefix': groupKeys.gonePrefix },
    ConsistentRead: true,
  });
  await cleanUpGroups(
    deps,
    org,
    pending.map((item) => item.group_id),
  );
}
