import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '../store/batch';
import { type Store, strip } from '../store/store';
import { createUnique, isConditionFailure, onConditionFailure, transact } from '../store/writes';
import { apiKeyKeys, type StoredApiKey } from './model';

/**
 * A key is two items written and deleted together: the key under its hash (the one strongly consistent read a
 * request makes) and its entry in its site's partition (the site's list); its last use is a third item
 * (`recordUse`), deleted with them.
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
  await withLastUse(store, keys);
  return keys.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** Fills in each key's `last_used_at` from its last-use item (at most 100 keys: one BatchGetItem). */
async function withLastUse(store: Store, keys: StoredApiKey[]): Promise<void> {
  if (keys.length === 0) return;
  const uses = await batchGet<{ id: string; last_used_at: string }>(
    store,
    keys.map((key) => apiKeyKeys.lastUse(key.id)),
  );
  const byId = new Map(uses.map((use) => [use.id, use.last_used_at]));
  for (const key of keys) key.last_used_at = byId.get(key.id) ?? key.last_used_at ?? null;
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
      { Delete: { TableName: store.table, Key: apiKeyKeys.lastUse(key.id) } },
    ]).then(() => true),
    () => false,
  );
}

/**
 * Sets the key's last use, only when the stored one is older than `before` (one write a minute per key at most,
 * across containers). False when the condition refused it. An UpdateItem of the key's own last-use item only: the
 * grant of functions that otherwise only read is conditioned on that partition (infra/table-access.ts).
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
        Key: apiKeyKeys.lastUse(key.id),
        UpdateExpression: 'SET last_used_at = :at, id = :id',
        ConditionExpression: 'attribute_not_exists(last_used_at) OR last_used_at < :before',
        ExpressionAttributeValues: { ':at': at, ':before': before, ':id': key.id },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
