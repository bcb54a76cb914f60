/**
 * Who finishes a deletion that answered 202 (docs/lifecycle.md, "Finished in the background"): the deleting request
 * hands the rest over and answers; the work goes on with no further request. Locally the server's own background
 * sweep (shared/adapters/local/background-deletions.ts); in the cloud an asynchronous invocation of the deletion
 * sweeper function (shared/adapters/aws/lambda-deletion-hand-off.ts), with a schedule behind it that sweeps
 * whatever a lost hand-off left.
 */
export interface DeletionHandOff {
  /** Hands the pending deletions over; returns without waiting for them. Never throws (a failure is logged). */
  handOff(): Promise<void>;
  /** Stops taking hand-offs and waits for the work under way to reach a point where it may stop. */
  stop(): Promise<void>;
}

/** No background: the scope's next request and the next start finish the work (DELETIONS_IN_BACKGROUND=false). */
export const noHandOff: DeletionHandOff = {
  handOff: async () => {},
  stop: async () => {},
};
