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
 * or malformed tokens, used invitations, refused acceptances) are counted per token in DynamoDB windows
 * (shared/limits), and a locked token gets 429 with Retry-After before anything is read. Nothing is counted or
 * locked per client address: a token is 256 random bits, so guessing is not what a lock would defend against, and
 * a lock per address let one person behind a shared address (an office's NAT) refuse everyone's valid links. A
 * valid token is refused only for failures on that same token (docs/security.md, "Invitations").
 */
type Ctx = RequestContext<unknown, unknown, unknown>;

function tokenPolicy(config: Config): FailurePolicy {
  const limits = config.invitationLimits;
  return {
    scope: 'invitation-token',
    maxFailures: limits.maxFailuresPerToken,
    windowSeconds: limits.windowSeconds,
    lockoutSeconds: limits.lockoutSeconds,
    maxLockoutSeconds: limits.maxLockoutSeconds,
  };
}

/** Public answers are never cached: they are answers about a credential. */
export const noStore = { 'cache-control': 'no-store' } as const;

/**
 * Runs one public attempt on a token: refuses it while the token is locked, and counts and logs
 * (with a hash of the token, never the token) every client error it ends in. Every answer carries no-store.
 */
export async function publicAttempt(
  ctx: Ctx,
  token: string,
  attempt: () => Promise<HttpResult>,
): Promise<HttpResult> {
  const perToken = tokenPolicy(ctx.deps.config);
  try {
    await assertNotLocked(ctx.deps, perToken, token.toLowerCase());
    const result = await attempt();
    return { ...result, headers: { ...result.headers, ...noStore } };
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    if (error.status !== 429) await recordFailure(ctx.deps, perToken, token.toLowerCase());
    ctx.log.warn('invitation attempt failed', {
      operation: ctx.route.operationId,
      status: error.status,
      code: error.code,
      invitation_ref: subjectHash(token.toLowerCase()),
      client_ref: subjectHash(ctx.clientIp ?? 'unknown'),
    });
    return {
      status: error.status,
      body: errorBody('detail', error),
      headers: { ...errorHeaders(error), ...noStore },
    };
  }
}
