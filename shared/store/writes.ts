import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Store } from './store';

/**
 * The conditional writes of the control plane, written once: a failed condition of DynamoDB (a single write's
 * ConditionalCheckFailedException, or a TransactWriteItems cancelled with its reasons) becomes the domain's error
 * that the caller names, every other error goes through unchanged.
 */

/** One item of a TransactWriteItems. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Which conditions a refused write failed: `[0]` for a single conditional put, update or delete; for a cancelled
 * transaction the indexes of its items whose condition failed (`[]` when it was cancelled for another reason only,
 * such as a concurrent transaction on the same items); undefined for any other error, which the caller rethrows.
 */
export function conditionFailures(error: unknown): number[] | undefined {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'ConditionalCheckFailedException') return [0];
  if (!(error instanceof TransactionCanceledException) && name !== 'TransactionCanceledException')
    return undefined;
  const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
  return reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
}

/**
 * Whether a transaction was cancelled only because another one touched the same items (`TransactionConflict`, no
 * failed condition): worth sending again.
 */
export function isTransactionConflict(error: unknown): boolean {
  if ((error as { name?: string } | undefined)?.name !== 'TransactionCanceledException') return false;
  const codes = ((error as TransactionCanceledException).CancellationReasons ?? []).map(
    (reason) => reason.Code,
  );
  return codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
}

/** Whether a write was refused by its condition(s): `conditionFailures` answers indexes rather than undefined. */
export function isConditionFailure(error: unknown): boolean {
  return conditionFailures(error) !== undefined;
}

/**
 * Awaits a conditional write and, when it is refused by a condition, answers what `onFailure` makes of the failed
 * indexes (`conditionFailures`): it throws the domain's error, returns a value for the caller, or rethrows the
 * original error it is given. Any other error goes through unchanged.
 */
export async function onConditionFailure<T, R>(
  write: Promise<T>,
  onFailure: (failed: number[], error: unknown) => R | Promise<R>,
): Promise<T | R> {
  try {
    return await write;
  } catch (error) {
    const failed = conditionFailures(error);
    if (failed === undefined) throw error;
    return await onFailure(failed, error);
  }
}

/** Rethrows a condition failure's original error: for `onFailure` callbacks that claim only some indexes. */
export function rethrow(error: unknown): never {
  throw error;
}

/** Sends one TransactWriteItems of `items` (at most 100, DynamoDB's limit). */
export async function transact(store: Store, items: readonly TransactItem[]): Promise<void> {
  await store.doc.send(new TransactWriteCommand({ TransactItems: [...items] }));
}

/** A transaction item that creates an item and fails (cancelling the transaction) if its key is taken. */
export function putNew(table: string, item: Record<string, unknown>) {
  return { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } };
}

/** An item that must be new: an entity, or the sentinel that keeps one of its names unique. */
export interface NewItem {
  /** The item with its keys: creating it fails when an item of that key exists. */
  readonly item: Record<string, unknown>;
  /** The domain's error when the key is taken ("a … named X already exists"); none leaves it to `otherwise`. */
  readonly taken?: (() => Error) | undefined;
}

export interface CreateOptions {
  /** Written in the same transaction after the new items (unconditioned, or conditioned by the caller). */
  readonly also?: readonly TransactItem[] | undefined;
  /**
   * The error when the transaction was cancelled and no taken key of `items` named one (`failed`: the indexes of
   * the items whose condition failed, `also` counted after `items`; `[]` when cancelled by a concurrent
   * transaction). Without it the original error is rethrown.
   */
  readonly otherwise?: ((failed: number[]) => Error | Promise<Error>) | undefined;
}

/**
 * Creates items that must be new together, in one transaction: an entity and the sentinel(s) of its unique names,
 * in the order given. When keys are taken, the first of `items` whose key is taken and that names an error throws
 * it (so list first the key whose error should win); otherwise `options.otherwise`, else the original error.
 */
export async function createUnique(
  store: Store,
  items: readonly NewItem[],
  options: CreateOptions = {},
): Promise<void> {
  await onConditionFailure(
    transact(store, [...items.map((entry) => putNew(store.table, entry.item)), ...(options.also ?? [])]),
    async (failed, error) => {
      const taken = items.find((entry, index) => entry.taken && failed.includes(index))?.taken;
      if (taken) throw taken();
      if (options.otherwise) throw await options.otherwise(failed);
      throw error;
    },
  );
}

/** Creates one item unless its key is taken (one conditional PutItem); a taken key is the domain's `taken()`. */
export async function createItem(
  store: Store,
  item: Record<string, unknown>,
  taken: () => Error,
): Promise<void> {
  await onConditionFailure(
    store.doc.send(
      new PutCommand({ TableName: store.table, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
    ),
    () => {
      throw taken();
    },
  );
}

/** The condition that an item's version attribute still holds the version that was read. */
export function atVersion(version: number, attribute = 'version') {
  return {
    ConditionExpression: '#version = :version',
    ExpressionAttributeNames: { '#version': attribute },
    ExpressionAttributeValues: { ':version': version },
  };
}

/** An update's own part: key, SET/ADD/REMOVE clauses and their names and values (no condition). */
export interface VersionedUpdateInput {
  readonly Key: Record<string, unknown>;
  readonly UpdateExpression: string;
  readonly ExpressionAttributeNames?: Record<string, string> | undefined;
  readonly ExpressionAttributeValues?: Record<string, unknown> | undefined;
}

/**
 * The input of an update on the condition that the item is still at `version` (`#version` and `:version` are
 * taken: the update may use `#version` to set the next one).
 */
export function versionedUpdate(
  table: string,
  update: VersionedUpdateInput,
  version: number,
  attribute = 'version',
) {
  const check = atVersion(version, attribute);
  return {
    TableName: table,
    Key: update.Key,
    UpdateExpression: update.UpdateExpression,
    ConditionExpression: check.ConditionExpression,
    ExpressionAttributeNames: { ...check.ExpressionAttributeNames, ...update.ExpressionAttributeNames },
    ExpressionAttributeValues: { ...check.ExpressionAttributeValues, ...update.ExpressionAttributeValues },
  };
}

/**
 * Updates an item on the condition that it is still at the version that was read (one UpdateItem). A changed or
 * deleted item throws `changed()` (the domain's 409) when given, and answers false otherwise; true when written.
 */
export async function updateAtVersion(
  store: Store,
  update: VersionedUpdateInput,
  version: number,
  changed?: () => Error,
): Promise<boolean> {
  return onConditionFailure(
    store.doc.send(new UpdateCommand(versionedUpdate(store.table, update, version))).then(() => true),
    () => {
      if (changed) throw changed();
      return false;
    },
  );
}
