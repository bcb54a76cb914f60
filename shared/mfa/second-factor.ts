import { BatchGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { SessionUser } from '../accounts/model';
import { publicUser } from '../accounts/model';
import type { TokenService } from '../auth/tokens';
import { type MfaBinding, mfaTokenSeconds } from '../auth/tokens';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { AuthenticationError, ValidationError } from '../errors';
import { open } from '../keys/envelope';
import type { Keys } from '../keys/keys';
import { refuseIfLocked } from '../limits/failures';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { conditionFailures, type TransactItem } from '../store/writes';
import { methodsOf, mfaOf, totpContext } from './model';
import { normalRecoveryCode, recoveryCodeHash } from './recovery-codes';
import { codeThrottle } from './throttle';
import { matchingStep } from './totp';

/**
 * The second step of a sign-in for an account with a factor (issue 39, item 6). The first step (a right password,
 * or a provider's word) answers 401 `mfa_required` with an `mfa_token`: a signed JWT of type `mfa` (so no access
 * check accepts it), naming the user, the user's token version, how the first step went (`amr`) and where the
 * sign-in ends (`mfa_for`: tokens or a browser session), for five minutes. Writing nothing, the first step costs
 * no store round trip more than a password sign-in.
 *
 * The second step reads the user, the token's challenge item and the account's code throttle in one BatchGetItem,
 * checks the code in memory, and on success writes in one transaction the challenge spent, the factor's last step
 * (or the recovery code's removal) and the new session: one store round trip more than a password sign-in.
 */
export type SecondFactorDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: Config;
  readonly keys: Keys;
  readonly tokens: TokenService;
  readonly log: Logger;
};

/** Wrong codes one `mfa_token` survives: the fifth ends it. */
export const codesPerMfaToken = 5;

const challengeKey = (jti: string) => ({ PK: `MFACHAL#${jti}`, SK: 'CHALLENGE' });

/** Throws the 401 `mfa_required` with a new `mfa_token` when the stored user has a second factor. */
export async function requireNoSecondFactor(
  deps: { tokens: TokenService },
  stored: object | undefined,
  user: SessionUser,
  amr: readonly string[],
  mfaFor: MfaBinding,
): Promise<void> {
  const methods = methodsOf(stored);
  if (methods.length === 0) return;
  const mfaToken = await deps.tokens.issue(user, 'mfa', { amr, mfaFor });
  throw new AuthenticationError({
    code: 'mfa_required',
    message: 'A second factor is required: send a code with the mfa_token to /api/auth/mfa/authenticate/.',
    extra: { code: 'mfa_required', mfa_token: mfaToken, methods },
  });
}

function failure(code: string, message: string): AuthenticationError {
  return new AuthenticationError({ code, message, extra: { code } });
}

const tokenNotValid = () =>
  failure('mfa_token_not_valid', 'The sign-in has expired or ended: sign in again with the password.');
const codeNotValid = () => failure('mfa_code_invalid', 'The code is not correct.');

export interface SecondFactorInput {
  mfa_token: string;
  code?: string | undefined;
  recovery_code?: string | undefined;
}

/** What the caller writes in the same transaction: the new refresh family or browser session of `user`. */
export type SessionWrite = (user: SessionUser, amr: readonly string[]) => TransactItem;

async function readAll(deps: SecondFactorDeps, wanted: Array<{ PK: string; SK: string }>) {
  const found = new Map<string, Record<string, unknown>>();
  let pending = wanted;
  for (let round = 0; round < 3 && pending.length > 0; round++) {
    const result = await deps.store.doc.send(
      new BatchGetCommand({ RequestItems: { [deps.store.table]: { Keys: pending, ConsistentRead: true } } }),
    );
    for (const item of result.Responses?.[deps.store.table] ?? []) found.set(`${item.PK}|${item.SK}`, item);
    pending = (result.UnprocessedKeys?.[deps.store.table]?.Keys ?? []) as typeof wanted;
  }
  if (pending.length > 0) throw new Error('second-factor read left keys unprocessed');
  return (key: { PK: string; SK: string }) => found.get(`${key.PK}|${key.SK}`);
}

/**
 * Checks the second factor of a sign-in and writes its session: the user and how they signed in. 401 for an
 * unknown, expired, spent or foreign `mfa_token` or a wrong code; 429 with Retry-After while the account's codes
 * are throttled.
 */
export async function completeSecondFactor(
  deps: SecondFactorDeps,
  input: SecondFactorInput,
  mfaFor: MfaBinding,
  sessionWrite: SessionWrite,
): Promise<{ user: SessionUser; amr: string[] }> {
  const hasCode = input.code !== undefined;
  if (hasCode === (input.recovery_code !== undefined))
    throw ValidationError.field('code', 'Send either code or recovery_code.', 'mfa_code_missing');
  const claims = await deps.tokens.verify(input.mfa_token, 'mfa').catch(() => {
    throw tokenNotValid();
  });
  if (claims.mfaFor !== mfaFor) throw tokenNotValid();
  const throttle = codeThrottle(deps, claims.userId);
  const challenge = challengeKey(claims.jti);
  const userKey = keys.user(claims.userId);
  const item = await readAll(deps, [userKey, challenge, throttle.key]);
  const stored = item(userKey);
  const spent = item(challenge);
  if (spent?.used_at !== undefined || Number(spent?.failures ?? 0) >= codesPerMfaToken) throw tokenNotValid();
  refuseIfLocked(item(throttle.key), deps.clock);
  const mfa = mfaOf(stored);
  if (!stored) throw tokenNotValid();
  if (stored.is_active !== true || !mfa.mfa_totp) throw tokenNotValid();
  if (Number(stored.token_version ?? 0) !== claims.tokenVersion) throw tokenNotValid();

  let factorWrite: TransactItem | undefined;
  let amr: string[];
  const version = claims.tokenVersion;
  const versionCondition =
    version === 0 ? '(attribute_not_exists(token_version) OR token_version = :ver)' : 'token_version = :ver';
  if (hasCode) {
    const secret = String(await open(deps.keys, mfa.mfa_totp, totpContext(claims.userId)));
    const step = matchingStep(secret, input.code ?? '', deps.clock());
    if (step !== undefined && step > mfa.mfa_totp.last_step) {
      factorWrite = {
        Update: {
          TableName: deps.store.table,
          Key: userKey,
          UpdateExpression: 'SET mfa_totp.last_step = :step, last_login = :now',
          ConditionExpression: `mfa_totp.last_step < :step AND is_active = :active AND ${versionCondition}`,
          ExpressionAttributeValues: {
            ':step': step,
            ':now': iso(deps.clock()),
            ':active': true,
            ':ver': version,
          },
        },
      };
    }
    amr = [...claims.amr, 'otp', 'mfa'];
  } else {
    const hash = recoveryCodeHash(input.recovery_code ?? '');
    if (normalRecoveryCode(input.recovery_code ?? '').length === 10 && mfa.mfa_recovery?.has(hash)) {
      factorWrite = {
        Update: {
          TableName: deps.store.table,
          Key: userKey,
          UpdateExpression: 'DELETE mfa_recovery :spent SET last_login = :now',
          ConditionExpression: `contains(mfa_recovery, :hash) AND is_active = :active AND ${versionCondition}`,
          ExpressionAttributeValues: {
            ':spent': new Set([hash]),
            ':hash': hash,
            ':now': iso(deps.clock()),
            ':active': true,
            ':ver': version,
          },
        },
      };
    }
    amr = [...claims.amr, 'recovery_code', 'mfa'];
  }
  if (!factorWrite) return refuse(deps, claims.userId, claims.jti, claims.expiresAt);

  const user: SessionUser = {
    ...publicUser(stored as never),
    token_version: version,
    email_verified: stored.email_verified === true,
  };
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: deps.store.table,
              Item: { ...challenge, used_at: iso(deps.clock()), expires_at_epoch: claims.expiresAt },
              ConditionExpression:
                'attribute_not_exists(PK) OR (failures < :max AND attribute_not_exists(used_at))',
              ExpressionAttributeValues: { ':max': codesPerMfaToken },
            },
          },
          factorWrite,
          sessionWrite(user, amr),
        ],
      }),
    );
  } catch (error) {
    const failed = conditionFailures(error);
    if (failed === undefined) throw error;
    // Spent or ended by a parallel request, or the same code (step) or recovery code used at the same moment.
    if (failed.includes(0)) throw tokenNotValid();
    return refuse(deps, claims.userId, claims.jti, claims.expiresAt);
  }
  if (item(throttle.key) !== undefined) await throttle.succeeded();
  deps.log.info('second factor accepted', {
    event: 'mfa_accepted',
    user_id: user.id,
    method: hasCode ? 'totp' : 'recovery_code',
  });
  return { user, amr };
}

/** Counts a wrong code against the `mfa_token` and the account, then answers 401. */
async function refuse(
  deps: SecondFactorDeps,
  userId: number,
  jti: string,
  expiresAt: number,
): Promise<never> {
  const result = await deps.store.doc.send(
    new UpdateCommand({
      TableName: deps.store.table,
      Key: challengeKey(jti),
      UpdateExpression: 'ADD failures :one SET expires_at_epoch = :expires',
      ExpressionAttributeValues: { ':one': 1, ':expires': expiresAt + mfaTokenSeconds },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const failures = Number(result.Attributes?.failures ?? 1);
  const account = await codeThrottle(deps, userId).failed();
  deps.log.warn('second factor refused', {
    event: 'mfa_failed',
    user_id: userId,
    token_failures: failures,
    account_failures: account,
  });
  if (failures >= codesPerMfaToken) throw tokenNotValid();
  throw codeNotValid();
}
