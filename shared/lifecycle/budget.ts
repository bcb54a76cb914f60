import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { ValueCache } from '../secrets/value-cache';
import type { Sql } from '../sql/client';
import { backoff } from '../store/batch';
import type { Store } from '../store/store';
import { conditionFailures, isTransactionConflict, type TransactItem, transact } from '../store/writes';

/** The ports deletions need. */
export interface LifecycleDeps {
  store: Store;
  sql: () => Sql;
  /**
   * False where the process has no data plane (the accounts function in the cloud, outside the VPC): a cleanup
   * stops at its first SQL step and is owed, so the deletion answers 202 and the deletion sweeper, which has the
   * data plane, runs it. Absent means the data plane is here.
   */
  hasSql?: boolean;
  clock: Clock;
  log?: Logger | undefined;
  secretCache: ValueCache;
  config: { deletionStepsPerRequest: number };
}

/**
 * How much cleanup one request (or one start) may do: steps of work (a data table dropped, a secret, function,
 * role, membership or session removed). DELETION_STEPS_PER_REQUEST bounds it; what is left waits in the tombstone.
 */
export interface Budget {
  left: number;
}

/** Whether this process runs the cleanups' SQL steps (dropping an app's tables, a site's schema). */
export function runsSql(deps: Pick<LifecycleDeps, 'hasSql'>): boolean {
  return deps.hasSql !== false;
}

export function budgetOf(deps: LifecycleDeps): Budget {
  return { left: deps.config.deletionStepsPerRequest };
}

export function spend(budget: Budget, steps: number): void {
  budget.left -= steps;
}

/** Every item of a query with its keys (deletes need them; `queryAll` strips them). */
export async function queryItems(
  store: Store,
  input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>,
): Promise<({ PK: string; SK: string } & Record<string, unknown>)[]> {
  const items: ({ PK: string; SK: string } & Record<string, unknown>)[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({ ...input, TableName: store.table, ExclusiveStartKey: start }),
    );
    items.push(...((page.Items ?? []) as ({ PK: string; SK: string } & Record<string, unknown>)[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * The key of the item a deletion removed (the app, the site, the organization). While it is absent the name is
 * free; once it is back, the name belongs to a new owner, and a cleanup of the old one may remove nothing more: the
 * new owner's items sit under the same keys. A cleanup can outlive its tombstone (the background sweep reads the
 * pending deletions once and works through them for minutes while the scope's own requests finish the same ones,
 * and the name is then free for anyone), so every write of a cleanup carries this condition in its transaction.
 */
export interface NameKey {
  PK: string;
  SK: string;
}

/** A cleanup met its name taken again: the tombstone was finished by another cleaner; this one stops. */
export class NameTakenError extends Error {
  constructor(readonly key: NameKey) {
    super(`The name of ${key.PK} ${key.SK} was taken again: the cleanup that found it stops`);
    this.name = 'NameTakenError';
  }
}

/** A transaction item that fails (cancelling the transaction) once the name is taken again. */
export function nameStillFree(table: string, name: NameKey): TransactItem {
  return { ConditionCheck: { TableName: table, Key: name, ConditionExpression: 'attribute_not_exists(PK)' } };
}

const sameKey = (a: NameKey, b: NameKey) => a.PK === b.PK && a.SK === b.SK;

const conflictAttempts = 5;

/**
 * Sends a cleanup's transaction `items` with the name's condition last. Answers the indexes of `items` whose own
 * condition failed (`[]` when all were written); throws NameTakenError when the name is taken again. A conflict with
 * a concurrent transaction on the same items (another cleaner of the same deletion) is sent again.
 */
export async function guardedWrite(
  deps: Pick<LifecycleDeps, 'store'>,
  name: NameKey,
  items: readonly TransactItem[],
): Promise<number[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      await transact(deps.store, [...items, nameStillFree(deps.store.table, name)]);
      return [];
    } catch (error) {
      if (isTransactionConflict(error) && attempt < conflictAttempts) {
        await backoff(attempt);
        continue;
      }
      const failed = conditionFailures(error);
      if (failed === undefined || failed.length === 0) throw error;
      if (failed.includes(items.length)) throw new NameTakenError(name);
      return failed;
    }
  }
}

/**
 * Deletes items within the budget; false when the budget ran out first. Only a delete that removed an item spends a
 * step, so a pass that meets keys an earlier pass removed already still moves on. With a `name` (the app, site or
 * organization whose cleanup this is), each delete is made only while the name is still free, and the name's own key
 * is never deleted here (it is absent, or a new owner's). A user's cleanup names none: user ids never come back.
 */
export async function removeAll(
  deps: LifecycleDeps,
  items: readonly { PK: string; SK: string }[],
  budget: Budget,
  name?: NameKey,
): Promise<boolean> {
  for (const item of items) {
    if (budget.left <= 0) return false;
    if (!name) {
      const { Attributes } = await deps.store.doc.send(
        new DeleteCommand({
          TableName: deps.store.table,
          Key: { PK: item.PK, SK: item.SK },
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (Attributes) spend(budget, 1);
      continue;
    }
    if (sameKey(item, name)) throw new NameTakenError(name);
    const failed = await guardedWrite(deps, name, [
      {
        Delete: {
          TableName: deps.store.table,
          Key: { PK: item.PK, SK: item.SK },
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
    ]);
    if (failed.length === 0) spend(budget, 1);
  }
  return true;
}

/**
 * Runs a cleanup of the deletion named `name`; when the name turns out taken again (NameTakenError of this name), the
 * deletion was finished by another cleaner and the new owner's items must stay: the tombstone (`tombstone`, its
 * exact key) is removed if still there, and the cleanup counts as finished.
 */
export async function untilNameTaken(
  deps: LifecycleDeps,
  name: NameKey,
  tombstone: NameKey,
  cleanUp: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await cleanUp();
  } catch (error) {
    if (!(error instanceof NameTakenError) || !sameKey(error.key, name)) throw error;
    deps.log?.info('deletion cleanup stopped: the name was taken again', { name: `${name.PK} ${name.SK}` });
    await deps.store.doc.send(new DeleteCommand({ TableName: deps.store.table, Key: tombstone }));
    return true;
  }
}
