import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { ValueCache } from '../secrets/value-cache';
import type { Sql } from '../sql/client';
import type { Store } from '../store/store';

/** The ports deletions need. */
export interface LifecycleDeps {
  store: Store;
  sql: () => Sql;
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
 * Deletes items within the budget; false when the budget ran out first. Only a delete that removed an item spends
 * a step, so a pass that meets keys an earlier pass removed already still moves on.
 */
export async function removeAll(
  deps: LifecycleDeps,
  items: readonly { PK: string; SK: string }[],
  budget: Budget,
): Promise<boolean> {
  for (const item of items) {
    if (budget.left <= 0) return false;
    const { Attributes } = await deps.store.doc.send(
      new DeleteCommand({
        TableName: deps.store.table,
        Key: { PK: item.PK, SK: item.SK },
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (Attributes) spend(budget, 1);
  }
  return true;
}
