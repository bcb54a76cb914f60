import type { SessionUser } from '../accounts/model';
import { checkCredentials, findLoginCandidate, passwordMatches } from '../accounts/users';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { AuthenticationError } from '../errors';
import {
  assertNotLocked,
  clearFailures,
  type FailurePolicy,
  recordFailure,
  reserveAttempt,
  subjectHash,
} from '../limits/failures';
import type { Logger } from '../log';
import { requireNoSecondFactor } from '../mfa/second-factor';
import type { Store } from '../store/store';
import { uniqueKey } from '../store/store';
import { startSession } from './sessions';
import type { MfaBinding, TokenPair, TokenService } from './tokens';

/**
 * Password checks under throttling: per account (every attempt is counted before the password is checked, and a
 * success forgets the count) and per client address (failures only, so that many users behind one address who
 * sign in fine are never locked out). Failures are logged as `login_failed` events with hashes, never the
 * password or the login name.
 */
export type LoginDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly tokens: TokenService;
  readonly config: Config;
  readonly log: Logger;
};

/** The two failure policies of sign-in, from the configuration. */
export function loginPolicies(config: Config): { account: FailurePolicy; ip: FailurePolicy } {
  const limits = config.loginLimits;
  const common = {
    windowSeconds: limits.windowSeconds,
    lockoutSeconds: limits.lockoutSeconds,
    maxLockoutSeconds: limits.maxLockoutSeconds,
  };
  return {
    account: { scope: 'login-account', maxFailures: limits.maxFailuresPerAccount, ...common },
    ip: { scope: 'login-ip', maxFailures: limits.maxFailuresPerIp, ...common },
  };
}

/** Runs one password check of `account` from `clientIp` under both limits; the check's result, or undefined. */
async function throttledCheck<T>(
  deps: LoginDeps,
  account: string,
  clientIp: string | undefined,
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  const policies = loginPolicies(deps.config);
  if (clientIp) await assertNotLocked(deps, policies.ip, clientIp);
  const attempt = await reserveAttempt(deps, policies.account, account);
  const result = await check();
  if (result !== undefined) {
    await clearFailures(deps, policies.account, account);
    return result;
  }
  const fromIp = clientIp ? await recordFailure(deps, policies.ip, clientIp) : undefined;
  deps.log.warn('sign-in failed', {
    event: 'login_failed',
    account: subjectHash(account),
    client_ip: clientIp,
    account_failures: attempt,
    ip_failures: fromIp,
  });
  return undefined;
}

/**
 * Signs a user in with a login (username or e-mail) and a password: a token pair, or a 401 or 429. For an account
 * with a second factor the right password answers 401 `mfa_required` with an `mfa_token` and no tokens
 * (shared/mfa/second-factor.ts), so that a client that knows nothing of factors fails safe.
 */
export async function signIn(
  deps: LoginDeps,
  credentials: { username: string; password: string },
  clientIp: string | undefined,
  userAgent?: string | undefined,
): Promise<TokenPair> {
  const user = await checkSignIn(deps, credentials, clientIp, 'jwt');
  return startSession(deps, user, ['pwd'], { ip: clientIp, userAgent });
}

/**
 * The user a login and a password name, checked under the sign-in limits (401 or 429); no session started. An
 * account with a second factor is the 401 `mfa_required`, its `mfa_token` bound to `mfaFor`.
 */
export async function checkSignIn(
  deps: LoginDeps,
  credentials: { username: string; password: string },
  clientIp: string | undefined,
  mfaFor: MfaBinding,
): Promise<SessionUser> {
  // One counter per account whichever login names it; unknown logins get their own, so a lock says nothing.
  const candidate = await findLoginCandidate(deps.store, credentials.username);
  const account = candidate ? `user:${candidate.id}` : `login:${uniqueKey(credentials.username)}`;
  const user = await throttledCheck<SessionUser>(deps, account, clientIp, () =>
    checkCredentials(deps, candidate, credentials.password),
  );
  if (!user) {
    throw new AuthenticationError({
      message: 'No active account found with the given credentials',
      code: 'no_active_account',
    });
  }
  await requireNoSecondFactor(deps, candidate, user, ['pwd'], mfaFor);
  return user;
}

/** Whether `password` is the user's current one, counted like a sign-in attempt of that account. */
export async function confirmPassword(
  deps: LoginDeps,
  userId: number,
  password: string,
  clientIp: string | undefined,
): Promise<boolean> {
  const ok = await throttledCheck(deps, `user:${userId}`, clientIp, async () =>
    (await passwordMatches(deps.store, userId, password)) ? true : undefined,
  );
  return ok === true;
}
