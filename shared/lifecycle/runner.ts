import { ConflictError } from '../errors';
import { queryAll, type Store } from '../store/store';
import { type AppTombstone, cleanUpApp } from './apps';
import { type Budget, budgetOf, type LifecycleDeps } from './budget';
import { deletionKeys } from './keys';
import { cleanUpOrganization, type OrganizationTombstone } from './organizations';
import { cleanUpSite, type SiteTombstone } from './sites';
import { cleanUpUser, type UserTombstone } from './users';

export type Tombstone = AppTombstone | SiteTombstone | OrganizationTombstone | UserTombstone;

function run(deps: LifecycleDeps, tomb: Tombstone, budget: Budget): Promise<boolean> {
  switch (tomb.kind) {
    case 'app':
      return cleanUpApp(deps, tomb, budget);
    case 'site':
      return cleanUpSite(deps, tomb, budget);
    case 'organization':
      return cleanUpOrganization(deps, tomb, budget);
    default:
      return cleanUpUser(deps, tomb, budget);
  }
}

/** What a log line names of a tombstone (ids and slugs only). */
function named(tomb: Tombstone): Record<string, unknown> {
  const { kind, at: _at, deleted_by: _by, ...rest } = tomb as Tombstone & Record<string, unknown>;
  return { kind, ...rest };
}

export { type Budget, budgetOf, type LifecycleDeps } from './budget';

/** Runs one tombstone's cleanup within the budget; true when finished. A failure is logged and left owed. */
export async function cleanUpOne(deps: LifecycleDeps, tomb: Tombstone, budget: Budget): Promise<boolean> {
  try {
    return await run(deps, tomb, budget);
  } catch (error) {
    deps.log?.warn('deletion cleanup left for later', {
      ...named(tomb),
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

/**
 * Before a name is taken again (an app, site or organization created with a slug whose deletion is pending): the
 * pending cleanup runs first, and the create is refused (409) while some is still owed, since that cleanup would
 * remove what the new one puts under the same name.
 */
export async function finishBeforeReuse(deps: LifecycleDeps, prefix: string, what: string): Promise<void> {
  if ((await finishPendingDeletions(deps, prefix)) > 0)
    throw new ConflictError({
      code: 'deletion_pending',
      message: `${what} of this name is still being deleted: try again in a moment.`,
    });
}
