import { queryAll, type Store } from '../store/store';
import { type AppTombstone, cleanUpApp } from './apps';
import { type Budget, budgetOf, type LifecycleDeps } from './budget';
import { deletionKeys } from './keys';
import { cleanUpUser, type UserTombstone } from './users';

export type Tombstone = AppTombstone | UserTombstone;

export { type Budget, budgetOf, type LifecycleDeps } from './budget';

/** Runs one tombstone's cleanup within the budget; true when finished. A failure is logged and left owed. */
export async function cleanUpOne(deps: LifecycleDeps, tomb: Tombstone, budget: Budget): Promise<boolean> {
  try {
    return tomb.kind === 'app' ? await cleanUpApp(deps, tomb, budget) : await cleanUpUser(deps, tomb, budget);
  } catch (error) {
    deps.log?.warn('deletion cleanup left for later', {
      kind: tomb.kind,
      ...(tomb.kind === 'app' ? { site: tomb.site, app_id: tomb.app_id } : { user_id: tomb.user_id }),
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

/** The pending deletions whose sort key starts with `prefix` (one Query of the deletions' partition). */
export function pendingDeletions(store: Store, prefix = ''): Promise<Tombstone[]> {
  return queryAll<Tombstone>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': deletionKeys.partition, ':prefix': prefix },
    ConsistentRead: true,
  });
}

/**
 * Finishes pending deletions (of one tenant when `prefix` names it), oldest first, within the budget. Returns how
 * many are still owed.
 */
export async function finishPendingDeletions(
  deps: LifecycleDeps,
  prefix = '',
  budget: Budget = budgetOf(deps),
): Promise<number> {
  const pending = await pendingDeletions(deps.store, prefix);
  let left = pending.length;
  for (const tomb of pending) {
    if (budget.left <= 0) break;
    if (await cleanUpOne(deps, tomb, budget)) left--;
    else break;
  }
  return left;
}
