import { cloudDeps } from '../../shared/compose/cloud';
import { sqlPlane } from '../../shared/compose/sql-plane';
import type { Deps } from '../../shared/deps';
import type { SweepResult } from '../../shared/lifecycle/sweep';
import { sweepDeletions } from '../../shared/lifecycle/sweep';

/**
 * The deletion sweeper (not an HTTP group; docs/lifecycle.md, "Finished in the background"): finishes every pending
 * deletion of every tenant. Invoked asynchronously by the accounts function when a deletion answers 202, and by a
 * schedule (infra/deletions.ts) that sweeps what a lost hand-off, a failure or a time-out left. Its input is
 * ignored: what it does is read from the table. A sweep in which a cleanup failed ends in an error (the alarm). It stops taking new passes `marginMs` before its time is up, so a
 * pass is never cut, and the rest waits in the tombstones for the next invocation.
 */

/** What a pass of DELETION_STEPS_PER_REQUEST steps may take at most, kept free before the function's time-out. */
export const marginMs = 60_000;

interface LambdaContext {
  getRemainingTimeInMillis(): number;
}

/** The sweep against these dependencies, stopping `marginMs` before the invocation's time is up. */
export function sweeper(deps: () => Deps) {
  return async (_event: unknown, context: LambdaContext): Promise<SweepResult> => {
    const ready = deps();
    const result = await sweepDeletions(ready, {
      shouldStop: () => context.getRemainingTimeInMillis() < marginMs,
    });
    if (result.owed > 0) ready.log.warn('deletions left for the next sweep', { ...result });
    else if (result.finished > 0) ready.log.info('deletions finished', { ...result });
    // A cleanup that failed fails the invocation, so that the sweeper's error alarm tells the operator (the log
    // line of cleanUpOne says which deletion and why); the next sweep tries again.
    if (result.failed > 0)
      throw new Error(
        `${result.failed} deletion cleanup(s) failed; ${result.owed} deletion(s) still pending`,
      );
    return result;
  };
}

/** The Lambda's entry point: the container's dependencies with the data plane (the app's database login). */
export const handler = sweeper(cloudDeps(sqlPlane));
