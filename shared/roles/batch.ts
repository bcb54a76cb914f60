import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type Store, strip } from '../store/store';

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

/** Reads items by key in batches of 100 (strongly consistent), retrying unprocessed keys; missing keys are left out. */
export async function batchGet<T>(store: Store, keys: readonly Key[]): Promise<T[]> {
  const found: T[] = [];
  for (const chunk of chunks(keys, batchGetLimit)) {
    let pending: Key[] = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === attempts) throw new Error('BatchGetItem left keys unprocessed after retries');
      if (attempt > 0) await backoff(attempt);
      const result = await store.doc.send(
        new BatchGetCommand({ RequestItems: { [store.table]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of result.Responses?.[store.table] ?? []) found.push(strip<T>(item));
      pending = (result.UnprocessedKeys?.[store.table]?.Keys as Key[] | undefined) ?? [];
    }
  }
  return found;
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
