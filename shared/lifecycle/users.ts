import { DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { gsi, keys } from '../accounts/keys';
import type { StoredUser } from '../accounts/model';
import { iso } from '../clock';
import { ConflictError, NotFoundError } from '../errors';
import { groupKeys } from '../groups/model';
import { roleGsi, roleKeys } from '../roles/keys';
import { queryAll, uniqueKey } from '../store/store';
import { type Budget, type LifecycleDeps, queryItems, removeAll } from './budget';
import { deletionKeys } from './keys';

/**
 * Erasing a user (docs/lifecycle.md, "What a user's deletion keeps"). One transaction removes the profile (names,
 * e-mail, password hash) and the username and e-mail sentinels (both may be taken again) and writes the tombstone:
 * from then on every token and browser session of the user is refused (the pipeline loads the user on every
 * request). The cleanup follows: organization and group memberships, site permissions, role memberships, provider
 * links, and the rest of the user's own partition; the tombstone goes last. What others need stays, by the user's
 * number only: who invited whom, who assigned a role, who deleted what.
 */

export interface UserTombstone {
  kind: 'user';
  user_id: number;
  deleted_by: number;
  at: string;
}

/** Refuses while the user owns an organization (ownership must be transferred, or the organization deleted). */
async function assertOwnsNothing(deps: LifecycleDeps, userId: number): Promise<void> {
  const memberships = await queryAll<{ role: string; organization: string }>(deps.store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi.userMemberships(userId) },
  });
  const owned = memberships.filter((membership) => membership.role === 'owner');
  if (owned.length > 0)
    throw new ConflictError({
      code: 'owns_organizations',
      message: `The user owns ${owned.length} organization(s) (${owned.map((m) => m.organization).join(', ')}): transfer their ownership first.`,
    });
}

export async function markUserDeleted(
  deps: LifecycleDeps,
  userId: number,
  by: number,
): Promise<UserTombstone> {
  const { store } = deps;
  const found = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: keys.user(userId), ConsistentRead: true }),
  );
  const user = found.Item as StoredUser | undefined;
  if (!user) throw new NotFoundError();
  await assertOwnsNothing(deps, userId);
  const tomb: UserTombstone = { kind: 'user', user_id: userId, deleted_by: by, at: iso(deps.clock()) };
  const sentinel = (key: { PK: string; SK: string }) => ({
    Delete: { TableName: store.table, Key: key },
  });
  try {
    await store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: store.table,
              Key: keys.user(userId),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
          sentinel(keys.usernameSentinel(uniqueKey(user.username))),
          sentinel(keys.emailSentinel(uniqueKey(user.email))),
          { Put: { TableName: store.table, Item: { ...deletionKeys.user(userId), ...tomb } } },
        ],
      }),
    );
  } catch (error) {
    if (String((error as Error)?.name) === 'TransactionCanceledException') throw new NotFoundError();
    throw error;
  }
  return tomb;
}

type Key = { PK: string; SK: string };

function gsiKeys(deps: LifecycleDeps, partition: string) {
  return queryItems(deps.store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': partition },
  });
}

export async function cleanUpUser(
  deps: LifecycleDeps,
  tomb: UserTombstone,
  budget: Budget,
): Promise<boolean> {
  const userId = tomb.user_id;
  const { store } = deps;
  const memberships = await gsiKeys(deps, gsi.userMemberships(userId));
  const organizations = memberships.map((item) => String(item.PK).slice('ORG#'.length));
  const permissions = await gsiKeys(deps, gsi.userSitePermissions(userId));
  const sites = new Set(permissions.map((item) => String(item.PK).slice('SITE#'.length)));
  for (const org of organizations)
    for (const site of await gsiKeys(deps, gsi.organizationSites(org)))
      sites.add(String(site.PK).slice('SITE#'.length));
  // Role memberships in every site the user could hold roles in.
  for (const site of sites) {
    const held = await gsiKeys(deps, roleGsi.userRoles(site, userId));
    const owned = held.map((item) => roleKeys.membership(site, String(item.role_slug), userId));
    if (!(await removeAll(deps, owned, budget))) return false;
  }
  // Group memberships in each organization.
  for (const org of organizations) {
    const groups = await queryAll<{ group_id: number; user_id: number; PK: string; SK: string }>(store, {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': `ORG#${org}`, ':prefix': 'GROUPMEMBER#' },
      ConsistentRead: true,
    });
    const own = groups
      .filter((membership) => membership.user_id === userId)
      .map((membership) => groupKeys.membership(org, membership.group_id, userId));
    if (!(await removeAll(deps, own, budget))) return false;
  }
  if (!(await removeAll(deps, permissions, budget))) return false;
  // Provider links (the provider's side; the user's side is in the user's partition below).
  const partition = await queryItems(store, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': `USER#${userId}` },
    ConsistentRead: true,
  });
  const links = partition.flatMap((item) =>
    item.SK.startsWith('SOCIALLINK#') && item.link ? [item.link as Key] : [],
  );
  if (!(await removeAll(deps, links, budget))) return false;
  // Organization memberships last but one: they are how the next pass finds the organizations.
  if (!(await removeAll(deps, partition, budget))) return false;
  if (!(await removeAll(deps, memberships, budget))) return false;
  await store.doc.send(new DeleteCommand({ TableName: store.table, Key: deletionKeys.user(userId) }));
  return true;
}
