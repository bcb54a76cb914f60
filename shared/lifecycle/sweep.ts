import type { LifecycleDeps } from './budget';
import { cleanUpOne, pendingDeletions } from './runner';

/**
 * The sweeper (docs/lifecycle.md, "Finished in the background"): finishes every pending deletion, of every tenant,
 * with no request waiting for it. It runs in passes of at most DELETION_STEPS_PER_REQUEST steps each, so that it
 * can stop between two passes (`shouldStop`: the server is stopping, or the Lambda's time is nearly up) and leave
 * the rest in the tombstones. A tombstone whose cleanup fails (an error, not the budget) is left for a later sweep
 * and the sweep moves on to the next one, so that one broken deletion never holds the others back.
 */

export interface SweepOptions {
  /** Asked before each pass: true stops the sweep there (the work left stays owed). */
  shouldStop?: () => boolean;
}

export interface SweepResult {
  /** Deletions finished by this sweep. */
  finished: number;
  /** Deletions whose cleanup failed in this sweep (left for a later one). */
  failed: number;
  /** Deletions still owed when the sweep ended (failed ones, and those a stop left). */
  owed: number;
}

export async function sweepDeletions(deps: LifecycleDeps, options: SweepOptions = {}): Promise<SweepResult> {
  const shouldStop = options.shouldStop ?? (() => false);
  const pending = await pendingDeletions(deps.store);
  const result: SweepResult = { finished: 0, failed: 0, owed: pending.length };
  for (const tomb of pending) {
    for (;;) {
      if (shouldStop()) return result;
      const budget = { left: deps.config.deletionStepsPerRequest };
      if (await cleanUpOne(deps, tomb, budget)) {
        result.finished++;
        result.owed--;
        break;
      }
      // Not finished with budget left: the cleanup failed (cleanUpOne logged why). The next sweep tries again.
      if (budget.left > 0) {
        result.failed++;
        break;
      }
    }
  }
  return result;
}
