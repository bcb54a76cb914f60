import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import { TooManyRequestsError } from '../errors';
import type { Store } from '../store/store';
import { isConditionFailure } from '../store/writes';

/**
 * Failure limits kept in DynamoDB, so that they hold across Lambda containers: a counter per subject (an account,
 * a client address, an invitation token) that locks the subject for a while once `maxFailures` failures happened
 * within `windowSeconds`; each further failure after a lock doubles the next lock, up to `maxLockoutSeconds`.
 * Items expire on their own through the table's TTL; reads ignore items whose window has passed, because TTL
 * deletion lags.
 */
export interface FailurePolicy {
  /** Names the counter family in keys and logs: `login-account`, `login-ip`, `invitation`, ... */
  readonly scope: string;
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly lockoutSeconds: number;
  readonly maxLockoutSeconds: number;
}

export interface LimitDeps {
  readonly store: Store;
  readonly clock: Clock;
}

interface Counter {
  failures: number;
  locked_until_epoch: number;
  expires_at_epoch: number;
}

/** A short, stable hash of a subject: keys and log lines never carry usernames or addresses in clear. */
export function subjectHash(subject: string): string {
  return createHash('sha256').update(subject).digest('hex').slice(0, 16);
}

/** The key of a subject's counter, for a caller that reads it in a batch beside other items (`refuseIfLocked`). */
export const counterKey = (policy: FailurePolicy, subject: string) => ({
  PK: `LIMIT#${policy.scope}#${subjectHash(subject)}`,
  SK: 'FAILURES',
});

const epochOf = (clock: Clock) => Math.floor(clock().getTime() / 1000);

/** The lock that the `failures`-th failure earns: none below the threshold, then doubling up to the maximum. */
export function lockoutAfter(policy: FailurePolicy, failures: number): number {
  if (failures < policy.maxFailures) return 0;
  const doublings = Math.min(failures - policy.maxFailures, 30);
  return Math.min(policy.maxLockoutSeconds, policy.lockoutSeconds * 2 ** doublings);
}

async function readCounter(deps: LimitDeps, policy: FailurePolicy, subject: string, now: number) {
  const result = await deps.store.doc.send(
    new GetCommand({ TableName: deps.store.table, Key: counterKey(policy, subject), ConsistentRead: true }),
  );
  const item = result.Item as Counter | undefined;
  return item && item.expires_at_epoch > now ? item : undefined;
}

function throttled(lockedUntil: number, now: number): TooManyRequestsError {
  return new TooManyRequestsError({ retryAfterSeconds: Math.max(1, lockedUntil - now) });
}

/** Throws a 429 with the seconds left when a counter item read by the caller (or undefined) locks its subject. */
export function refuseIfLocked(item: Record<string, unknown> | undefined, clock: Clock): void {
  const now = epochOf(clock);
  const counter = item as Counter | undefined;
  if (counter && counter.expires_at_epoch > now && counter.locked_until_epoch > now)
    throw throttled(counter.locked_until_epoch, now);
}

/** Throws a 429 with the seconds left while the subject is locked. */
export async function assertNotLocked(
  deps: LimitDeps,
  policy: FailurePolicy,
  subject: string,
): Promise<void> {
  const now = epochOf(deps.clock);
  const counter = await readCounter(deps, policy, subject, now);
  if (counter && counter.locked_until_epoch > now) throw throttled(counter.locked_until_epoch, now);
}

/**
 * Counts an attempt before it is checked, and locks the subject at once when this attempt reaches the threshold,
 * so that parallel attempts cannot all slip through before the first failure is recorded; a success clears the
 * counter (`clearFailures`). Writes are conditioned on the count read, so each count is handed out once; an
 * attempt that keeps losing that race is throttled.
 */
export async function reserveAttempt(
  deps: LimitDeps,
  policy: FailurePolicy,
  subject: string,
): Promise<number> {
  const key = counterKey(policy, subject);
  for (let round = 0; round < 4; round++) {
    const now = epochOf(deps.clock);
    const counter = await readCounter(deps, policy, subject, now);
    if (counter && counter.locked_until_epoch > now) throw throttled(counter.locked_until_epoch, now);
    const failures = (counter?.failures ?? 0) + 1;
    const lockedUntil = failures >= policy.maxFailures ? now + lockoutAfter(policy, failures) : 0;
    try {
      await deps.store.doc.send(
        new PutCommand({
          TableName: deps.store.table,
          Item: {
            ...key,
            failures,
            locked_until_epoch: lockedUntil,
            expires_at_epoch: Math.max(now + policy.windowSeconds, lockedUntil),
          },
          ConditionExpression: counter
            ? 'failures = :seen'
            : 'attribute_not_exists(PK) OR expires_at_epoch <= :now',
          ExpressionAttributeValues: counter ? { ':seen': counter.failures } : { ':now': now },
        }),
      );
      return failures;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new TooManyRequestsError({ retryAfterSeconds: 1 });
}

/** Counts a failure after the fact (atomic), locking the subject once the threshold is reached; returns the count. */
export async function recordFailure(
  deps: LimitDeps,
  policy: FailurePolicy,
  subject: string,
): Promise<number> {
  const key = counterKey(policy, subject);
  const now = epochOf(deps.clock);
  let failures = 1;
  try {
    const result = await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key,
        UpdateExpression: 'ADD failures :one SET expires_at_epoch = :expires',
        ConditionExpression: 'expires_at_epoch > :now',
        ExpressionAttributeValues: { ':one': 1, ':expires': now + policy.windowSeconds, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    failures = Number(result.Attributes?.failures ?? 1);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // No live window (never was, or it ended before TTL removed it): start a new one.
    await deps.store.doc.send(
      new PutCommand({
        TableName: deps.store.table,
        Item: { ...key, failures, locked_until_epoch: 0, expires_at_epoch: now + policy.windowSeconds },
      }),
    );
  }
  const lockout = lockoutAfter(policy, failures);
  if (lockout > 0) await extendLock(deps, key, now + lockout, now + Math.max(lockout, policy.windowSeconds));
  return failures;
}

async function extendLock(deps: LimitDeps, key: { PK: string; SK: string }, until: number, expires: number) {
  try {
    await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: key,
        UpdateExpression: 'SET locked_until_epoch = :until, expires_at_epoch = :expires',
        // A parallel failure may have set a longer lock already: never shorten it.
        ConditionExpression: 'locked_until_epoch < :until',
        ExpressionAttributeValues: { ':until': until, ':expires': expires },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Forgets a subject's failures (after a success). */
export async function clearFailures(deps: LimitDeps, policy: FailurePolicy, subject: string): Promise<void> {
  await deps.store.doc.send(
    new DeleteCommand({ TableName: deps.store.table, Key: counterKey(policy, subject) }),
  );
}
