import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { ValidationError } from '../errors';

/**
 * The password policy, applied wherever a password is set (user creation, password change, the bootstrap
 * superuser): at least `passwordMinLength` characters, not blank, and not guessable, as scored by zxcvbn against
 * its common-password and word lists plus the user's own names and e-mail address.
 */
export const passwordMinLength = 10;
export const passwordMaxLength = 1024;
/** zxcvbn score 3: about 10^8 guesses or more, out of reach of online guessing and costly offline on scrypt. */
export const passwordMinScore = 3;

/**
 * The estimate looks at the first 64 characters: a longer password is judged by them, so a weak start stays
 * refused. zxcvbn's default (256) let one check take about 220 ms of CPU for a 256-character random password
 * (its l33t matching grows quickly with length), on the event loop of a request anyone setting a password can
 * send; at 64 the slowest input found takes about 70 ms. Shorter passwords are scored exactly as before.
 */
const estimatorOptions = { maxLength: 64 } as const;

let estimator: Promise<ZxcvbnFactory> | undefined;

/** The estimator, built on first use: its dictionaries cost ~100 ms, which a cold start without passwords skips. */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary },
      graphs: common.adjacencyGraphs,
      ...estimatorOptions,
    });
  })();
  estimator.catch(() => {
    estimator = undefined;
  });
  return estimator;
}

/** Why a password is refused, or undefined when the policy accepts it; `related` are the user's own words. */
export async function passwordProblem(
  password: string,
  related: readonly string[] = [],
): Promise<string | undefined> {
  const length = [...password].length;
  if (length < passwordMinLength) return `Ensure this field has at least ${passwordMinLength} characters.`;
  if (length > passwordMaxLength)
    return `Ensure this field has no more than ${passwordMaxLength} characters.`;
  if (password.trim() === '') return 'This password is blank.';
  const inputs = related.flatMap((word) => [word, ...word.split(/[@.\s_+-]+/)]).filter((w) => w.length > 2);
  const result = (await loadEstimator()).check(password, inputs);
  if (result.score >= passwordMinScore) return undefined;
  return 'This password is too easy to guess: use a longer phrase of unrelated words.';
}

/** Throws a 400 naming `field` unless the policy accepts the password. */
export async function enforcePasswordPolicy(
  password: string,
  related: readonly string[] = [],
  field = 'password',
): Promise<void> {
  const problem = await passwordProblem(password, related);
  if (problem) throw ValidationError.field(field, problem, 'weak_password');
}
