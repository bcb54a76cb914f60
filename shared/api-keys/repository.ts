import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Store, strip } from '../store/store';
import { createUnique, isConditionFailure, onConditionFailure, transact } from '../store/writes';
import { apiKeyKeys, type StoredApiKey } from './model';

/**
 * A key is two items written and deleted together: the key under its hash (the one strongly consistent read a
 * request makes) and its entry in its site's partition (the site's list, and its `last_used_at`).
 */
export async function putApiKey(store: Store, key: StoredApiKey): Promise<void> {
  await createUnique(store, [
    { item: { ...apiKeyKeys.inSite(key.site, key.id), ...key } },
    { item: { ...apiKeyKeys.byHash(key.hash), ...key } },
  ]);
}

/** The key of a hash (strongly consistent: a revoked key is gone from the next read). */
export async function apiKeyOfHash(store: Store, hash: string): Promise<StoredApiKey | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: apiKeyKeys.byHash(hash), ConsistentRead: true }),
  );
  return result.Item ? strip<StoredApiKey>(result.Item) : undefined;
}

/** The site's keys, oldest first by id order (at most `apiKeysPerSite`: one or two pages). */
export async function siteApiKeys(store: Store, site: string): Promise<StoredApiKey[]> {
  const keys: StoredApiKey[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': `SITE#${site}`, ':sk': apiKeyKeys.sitePrefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) keys.push(strip<StoredApiKey>(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return keys.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** One key of a site; undefined when it has none of that id. */
export async function siteApiKey(store: Store, site: string, id: string): Promise<StoredApiKey | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: apiKeyKeys.inSite(site, id), ConsistentRead: true }),
  );
  return result.Item ? strip<StoredApiKey>(result.Item) : undefined;
}

/** Deletes both items of a key; false when it was revoked meanwhile. */
export async function deleteApiKey(store: Store, key: StoredApiKey): Promise<boolean> {
  return onConditionFailure(
    transact(store, [
      {
        Delete: {
          TableName: store.table,
          Key: apiKeyKeys.inSite(key.site, key.id),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      { Delete: { TableName: store.table, Key: apiKeyKeys.byHash(key.hash) } },
    ]).then(() => true),
    () => false,
  );
}

/**
 * Sets the key's `last_used_at` in its site entry, only when the stored one is older than `before` (one write a
 * minute per key at most, across containers) and the key still exists. False when the condition refused it.
 */
export async function recordUse(
  store: Store,
  key: StoredApiKey,
  at: string,
  before: string,
): Promise<boolean> {
  try {
    await store.doc.send(
      new UpdateCommand({
        TableName: store.table,
        Key: apiKeyKeys.inSite(key.site, key.id),
        UpdateExpression: 'SET last_used_at = :at',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(last_used_at) OR last_used_at = :none OR last_used_at < :before)',
        ExpressionAttributeValues: { ':at': at, ':before': before, ':none': null },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
