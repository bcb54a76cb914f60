import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../errors';
import { backoff, type Key } from '../store/batch';
import type { Store } from '../store/store';
import { isConditionFailure, isTransactionConflict } from '../store/writes';

/**
 * Self-service quotas (docs/security.md, "Quotas and self-service"). Each counted thing has a counter item (how
 * many organizations a user owns, how many sites an organization has) that every change of the count updates
 * in the same DynamoDB transaction as the change itself, with the condition `count < limit` when the change adds
 * one: of concurrent creates, exactly as many as the limit leaves room for succeed, never more. Superusers are
 * counted too (so the count stays true) but without the condition.
 */

/** A counted change: the counter it moves and the limit it must stay within (none for superusers). */
export interface Quota {
  key: Key;
  limit: number;
  exempt: boolean;
}

/**
 * Makes sure a counter exists before a transaction moves it, and reads it (for an early refusal; the transaction's
 * condition is what holds). A counter that does not exist yet (data from before the quotas) starts at what `count`
 * finds; of concurrent first uses one writes it, the others read it.
 */
export async function ensureCounter(store: Store, key: Key, count: () => Promise<number>): Promise<number> {
  const read = async () =>
    (await store.doc.send(new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }))).Item;
  const found = await read();
  if (found) return Number(found.count);
  const value = await count();
  try {
    await store.doc.send(
      new PutCommand({
        TableName: store.table,
        Item: { ...key, count: value },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return value;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return Number((await read())?.count);
  }
}

/** Whether a quota leaves room for one more, by the counter's value read before the transaction. */
export const hasRoom = (quota: Quota, count: number) => quota.exempt || count < quota.limit;

/** The transaction item that counts one more, refused (the transaction cancelled) when the limit is reached. */
export function takeOne(table: string, quota: Quota) {
  return {
    Update: {
      TableName: table,
      Key: quota.key,
      UpdateExpression: 'ADD #count :one',
      ConditionExpression: quota.exempt ? 'attribute_exists(PK)' : 'attribute_exists(PK) AND #count < :limit',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: quota.exempt ? { ':one': 1 } : { ':one': 1, ':limit': quota.limit },
    },
  };
}

/** The transaction item that counts one less (an organization handed on to another owner). */
export function giveBackOne(table: string, key: Key) {
  return {
    Update: {
      TableName: table,
      Key: key,
      UpdateExpression: 'ADD #count :minus',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':minus': -1 },
    },
  };
}

/** DynamoDB cancels a transaction that meets another on the same item (`TransactionConflict`): those are retried. */
const conflictAttempts = 6;

/**
 * Sends a counted transaction, again (after a short wait) when it was cancelled only because a concurrent one
 * touched the same counter; a failed condition is the caller's to read (`onConditionFailure`).
 */
export async function sendCounted(
  store: Store,
  items: TransactWriteCommandInput['TransactItems'],
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await store.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!isTransactionConflict(error) || attempt + 1 >= conflictAttempts) throw error;
      await backoff(attempt);
    }
  }
}

/** What a counted create answers when concurrent changes kept cancelling it (each retry met another). */
export function concurrentChanges(): ConflictError {
  return new ConflictError({
    code: 'concurrent_changes',
    message: 'Too many changes at the same time: retry.',
  });
}
