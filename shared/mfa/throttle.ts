import type { Clock } from '../clock';
import type { Config } from '../config';
import {
  assertNotLocked,
  clearFailures,
  counterKey,
  type FailurePolicy,
  recordFailure,
} from '../limits/failures';
import type { Store } from '../store/store';

/**
 * Wrong second-factor codes are counted per account, with the sign-in limits of the configuration (LOGIN_*):
 * past `maxFailuresPerAccount` wrong codes within the window, the account's codes are refused with a 429 and
 * Retry-After, whichever `mfa_token` or session sends them. Each `mfa_token` also dies after five wrong codes.
 */
export function mfaCodePolicy(config: Config): FailurePolicy {
  const limits = config.loginLimits;
  return {
    scope: 'mfa-account',
    maxFailures: limits.maxFailuresPerAccount,
    windowSeconds: limits.windowSeconds,
    lockoutSeconds: limits.lockoutSeconds,
    maxLockoutSeconds: limits.maxLockoutSeconds,
  };
}

export function codeThrottle(deps: { store: Store; clock: Clock; config: Config }, userId: number) {
  const policy = mfaCodePolicy(deps.config);
  const subject = `user:${userId}`;
  return {
    key: counterKey(policy, subject),
    assertOpen: () => assertNotLocked(deps, policy, subject),
    failed: () => recordFailure(deps, policy, subject),
    succeeded: () => clearFailures(deps, policy, subject),
  };
}
