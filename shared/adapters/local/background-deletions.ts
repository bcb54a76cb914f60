import type { LifecycleDeps } from '../../lifecycle/budget';
import type { DeletionHandOff } from '../../lifecycle/hand-off';
import { sweepDeletions } from '../../lifecycle/sweep';

/** How long after a failed cleanup the local sweep tries again by itself (a store that was briefly unreachable). */
export const retryAfterFailureMs = 30_000;

/** Runs `run` once, `delayMs` from now; returns what cancels it. */
export type Schedule = (run: () => void, delayMs: number) => () => void;

/** A timer that never keeps the process alive. */
const unrefTimer: Schedule = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * The local server's background sweep (docs/lifecycle.md, "Finished in the background"). A deletion that answered
 * 202 wakes it; it finishes every pending deletion in passes of DELETION_STEPS_PER_REQUEST steps, one sweep at a
 * time (a hand-off during a sweep asks for one more sweep, not a second one beside it), between the requests the
 * server goes on serving. A sweep in which a cleanup failed is followed by another one `retryAfterFailureMs` later.
 * `stop()` (the server is stopping) ends the sweep between two passes and waits for the pass under way, so that
 * the stores are closed under no cleanup; what is left stays in its tombstone for the next start. `schedule` sets the
 * retry's timer (an unref'd `setTimeout`; tests run the retry themselves).
 */
export class BackgroundDeletions implements DeletionHandOff {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private cancelRetry: (() => void) | undefined;

  constructor(
    private readonly deps: LifecycleDeps,
    private readonly schedule: Schedule = unrefTimer,
  ) {}

  async handOff(): Promise<void> {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when no sweep is under way (for tests that wait on the sweep itself). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    await this.idle();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        const result = await sweepDeletions(this.deps, { shouldStop: () => this.stopped });
        if (result.failed > 0 && !this.stopped) this.retryLater();
      } catch (error) {
        // The pending deletions could not even be read: try again later.
        this.deps.log?.warn('background deletion sweep failed', {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!this.stopped) this.retryLater();
      }
    } while (this.again && !this.stopped);
  }

  private retryLater(): void {
    this.cancelRetry?.();
    this.cancelRetry = this.schedule(() => void this.handOff(), retryAfterFailureMs);
  }
}
