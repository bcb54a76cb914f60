import type { HttpResult } from '../../shared/api/result';
import type { Config } from '../../shared/config';
import { AppError } from '../../shared/errors';
import type { RequestContext } from '../../shared/http/context';
import { errorBody, errorHeaders } from '../../shared/http/envelopes';
import {
  assertNotLocked,
  type FailurePolicy,
  recordFailure,
  subjectHash,
} from '../../shared/limits/failures';

/**
 * Throttling of the public invitation endpoints, where the token is the only credential: failed attempts (unknown
 * or malformed tokens, used invitations, refused acceptances) are counted per client address and per token in
 * DynamoDB windows (shared/limits); a locked address or token gets 429 with Retry-After before anything is read.
 */
type Ctx = RequestContext<unknown, unknown, unknown>;

function policies(config: Config): { ip: FailurePolicy; token: FailurePolicy } {
  const limits = config.invitationLimits;
  const common = {
    windowSeconds: limits.windowSeconds,
    lockoutSeconds: limits.lockoutSeconds,
    maxLockoutSeconds: limits.maxLockoutSeconds,
  };
  return {
    ip: { scope: 'invitation-ip', maxFailures: limits.maxFailuresPerIp, ...common },
    token: { scope: 'invitation-token', maxFailures: limits.maxFailuresPerToken, ...common },
  };
}

/** Public answers are never cached: they are answers about a credential. */
export const noStore = { 'cache-control': 'no-store' } as const;

/** The address a failure is counted against; requests without one share a bucket. */
const clientOf = (ctx: Ctx) => ctx.clientIp ?? 'unknown';

/**
 * Runs one public attempt on a token: refuses it while the address or the token is locked, and counts and logs
 * (with a hash of the token, never the token) every client error it ends in. Every answer carries no-store.
 */
export async function publicAttempt(
  ctx: Ctx,
  token: string,
  attempt: () => Promise<HttpResult>,
): Promise<HttpResult> {
  const { ip, token: perToken } = policies(ctx.deps.config);
  try {
    await assertNotLocked(ctx.deps, ip, clientOf(ctx));
    await assertNotLocked(ctx.deps, perToken, token.toLowerCase());
    const result = await attempt();
    return { ...result, headers: { ...result.headers, ...noStore } };
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    if (error.status !== 429) {
      await recordFailure(ctx.deps, ip, clientOf(ctx));
      await recordFailure(ctx.deps, perToken, token.toLowerCase());
    }
    ctx.log.warn('invitation attempt failed', {
      operation: ctx.route.operationId,
      status: error.status,
      code: error.code,
      invitation_ref: subjectHash(token.toLowerCase()),
      client_ref: subjectHash(clientOf(ctx)),
    });
    return {
      status: error.status,
      body: errorBody('detail', error),
      headers: { ...errorHeaders(error), ...noStore },
    };
  }
}
