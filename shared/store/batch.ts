import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type Store, strip } from './store';

export type Key = { PK: string; SK: string };

/** DynamoDB's per-request limits. */
export const batchGetLimit = 100;
export const batchWriteLimit = 25;
export const transactionLimit = 100;

const attempts = 8;

/** Splits a list into chunks of at most `size` items. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Waits a little longer on each attempt (throttling, transaction conflicts). */
export const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));

/** Reads items by key in batches of 100 (strongly consistent), retrying unprocessed keys; raw items, unordered. */
async function readItems(store: Store, keys: readonly Key[]): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const chunk of chunks(keys, batchGetLimit)) {
    let pending: Key[] = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === attempts) throw new Error('BatchGetItem left keys unprocessed after retries');
      if (attempt > 0) await backoff(attempt);
      const result = await store.doc.send(
        new BatchGetCommand({ RequestItems: { [store.table]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(result.Responses?.[store.table] ?? []));
      pending = (result.UnprocessedKeys?.[store.table]?.Keys as Key[] | undefined) ?? [];
    }
  }
  return found;
}

/** Reads items by key (strongly consistent); missing keys are left out, storage attributes stripped. */
export async function batchGet<T>(store: Store, keys: readonly Key[]): Promise<T[]> {
  return (await readItems(store, keys)).map((item) => strip<T>(item));
}

const keyText = (key: Key) => `${key.PK}\u0000${key.SK}`;

/**
 * Reads items by key and answers them by key: with at most 100 distinct keys this is one `BatchGetItem` round trip
 * (more only when DynamoDB throttles and leaves keys unprocessed). Items keep their storage attributes.
 */
export async function getItems(
  store: Store,
  keys: readonly Key[],
): Promise<(key: Key) => Record<string, unknown> | undefined> {
  const distinct = [...new Map(keys.map((key) => [keyText(key), { PK: key.PK, SK: key.SK }])).values()];
  const found = new Map((await readItems(store, distinct)).map((item) => [keyText(item as Key), item]));
  return (key) => found.get(keyText(key));
}

/** Deletes items by key in batches of 25, retrying unprocessed ones. Deleting a missing item is a no-op. */
export async function batchDelete(store: Store, keys: readonly Key[]): Promise<void> {
  for (const chunk of chunks(keys, batchWriteLimit)) {
    let pending = chunk.map((Key) => ({ DeleteRequest: { Key } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === attempts) throw new Error('BatchWriteItem left items unprocessed after retries');
      if (attempt > 0) await backoff(attempt);
      const result = await store.doc.send(
        new BatchWriteCommand({ RequestItems: { [store.table]: pending } }),
      );
      pending = (result.UnprocessedItems?.[store.table] as typeof pending | undefined) ?? [];
    }
  }
}
