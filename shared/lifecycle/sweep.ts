import type { LifecycleDeps } from './budget';
import { cleanUpOne, pendingDeletions } from './runner';

/**
 * The sweeper (docs/lifecycle.md, "Finished in the background"): finishes every pending deletion, of every tenant,
 * with no request waiting for it. It runs in passes of at most DELETION_STEPS_PER_REQUEST steps each, so that it
 * can stop between two passes (`shouldStop`: the server is stopping, or the Lambda's time is nearly up) and leave
 * the rest in the tombstones. The passes go round the pending deletions, one each per round, so that no tenant's
 * deletion, however large, holds back another's. A tombstone whose cleanup fails (an error, not the budget) is left
 * for a later sweep and the sweep moves on, so that one broken deletion never holds the others back.
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
  // Rounds of one pass per deletion: a deletion that needs many passes (a tenant's huge app) takes its turn with
  // the others instead of holding every later one back until it is done, or until the sweep's time is up.
  let owed = pending;
  while (owed.length > 0) {
    const next: typeof pending = [];
    for (const tomb of owed) {
      if (shouldStop()) return result;
      const budget = { left: deps.config.deletionStepsPerRequest };
      if (await cleanUpOne(deps, tomb, budget)) {
        result.finished++;
        result.owed--;
      } else if (budget.left > 0) {
        // Not finished with budget left: the cleanup failed (cleanUpOne logged why). The next sweep tries again.
        result.failed++;
      } else next.push(tomb);
    }
    owed = next;
  }
  return result;
}
