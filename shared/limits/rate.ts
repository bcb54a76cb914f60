import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TooManyRequestsError } from '../errors';
import { type LimitDeps, subjectHash } from './failures';

/**
 * Call limits kept in DynamoDB beside the failure limits (failures.ts), so that they hold across Lambda
 * containers: at most `maxCalls` calls per subject (a client address, a user) in each fixed window of
 * `windowSeconds`; the call over the limit gets a 429 with the seconds left in the window. One atomic counter per
 * subject and window, which expires on its own through the table's TTL.
 */
export interface RatePolicy {
  /** Names the counter family in keys and logs: `social-redirect`, ... */
  readonly scope: string;
  readonly maxCalls: number;
  readonly windowSeconds: number;
}

/** Counts one call of the subject; a 429 (with `retry_after`) once the window's calls are spent. */
export async function consumeCall(deps: LimitDeps, policy: RatePolicy, subject: string): Promise<void> {
  const now = Math.floor(deps.clock().getTime() / 1000);
  const window = Math.floor(now / policy.windowSeconds);
  const ends = (window + 1) * policy.windowSeconds;
  const result = await deps.store.doc.send(
    new UpdateCommand({
      TableName: deps.store.table,
      Key: { PK: `LIMIT#${policy.scope}#${subjectHash(subject)}`, SK: `WINDOW#${window}` },
      UpdateExpression: 'ADD calls :one SET expires_at_epoch = :expires',
      ExpressionAttributeValues: { ':one': 1, ':expires': ends },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  if (Number(result.Attributes?.calls ?? 1) > policy.maxCalls)
    throw new TooManyRequestsError({ retryAfterSeconds: Math.max(1, ends - now) });
}
