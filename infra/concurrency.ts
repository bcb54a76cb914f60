/**
 * Lambda concurrency the stack reserves (docs/deploying.md, "Concurrency"): what Lambda keeps unreserved, the quota
 * assumed when the settings name none, and the deletion sweeper's reservation.
 */

/** What Lambda keeps unreserved in every account and region: reservations may not go below it. */
export const unreservedMinimum = 100;
/** The account's concurrency quota assumed when `accountConcurrency` is not set (Lambda's default quota). */
export const defaultAccountConcurrency = 1000;
/** The deletion sweeper's reservation: one sweep at a time (infra/deletions.ts). */
export const sweeperConcurrency = 1;
