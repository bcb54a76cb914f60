import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import { endEarlierSessions } from '../accounts/users';
import type { Clock } from '../clock';
import { iso } from '../clock';
import type { Config } from '../config';
import { AppError, ValidationError } from '../errors';
import { open, seal } from '../keys/envelope';
import type { Keys } from '../keys/keys';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { isConditionFailure } from '../store/writes';
import { mfaOf, totpContext } from './model';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes';
import { codeThrottle } from './throttle';
import { matchingStep, newTotpSecret, otpauthUri, qrSvg } from './totp';

/**
 * Enrolling, confirming and removing a TOTP factor (issue 39, item 5). The secret is sealed with the platform's
 * envelope encryption (shared/keys) under a context naming the user, so the table never holds it in clear.
 */
export type FactorDeps = {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: Config;
  readonly keys: Keys;
  readonly log: Logger;
};

async function storedUser(deps: FactorDeps, userId: number): Promise<Record<string, unknown> | undefined> {
  const result = await deps.store.doc.send(
    new GetCommand({ TableName: deps.store.table, Key: keys.user(userId), ConsistentRead: true }),
  );
  return result.Item;
}

function alreadyEnrolled(): AppError {
  return new AppError(409, {
    code: 'mfa_already_enrolled',
    message: 'A TOTP factor is already set up: remove it before enrolling another.',
  });
}

/** What an account's factors are: the account page shows it. */
export async function factorStatus(deps: FactorDeps, userId: number) {
  const mfa = mfaOf(await storedUser(deps, userId));
  return {
    methods: mfa.mfa_totp ? ['totp'] : [],
    totp: mfa.mfa_totp ? { confirmed_at: mfa.mfa_totp.confirmed_at } : null,
    enrolling: mfa.mfa_totp === undefined && mfa.mfa_totp_pending !== undefined,
    recovery_codes_left: mfa.mfa_totp ? (mfa.mfa_recovery?.size ?? 0) : 0,
  };
}

/**
 * Starts an enrolment: a new secret, kept sealed as pending until a code from it is confirmed; answers the secret,
 * its `otpauth://` URI and the URI as a QR code (SVG). A second call replaces a pending secret (a new QR code).
 */
export async function enrolTotp(
  deps: FactorDeps,
  user: { id: number; username: string },
  issuer: string,
): Promise<{ secret: string; otpauth_url: string; qr_svg: string }> {
  const secret = newTotpSecret();
  const sealed = await seal(deps.keys, secret, totpContext(user.id));
  try {
    await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: keys.user(user.id),
        UpdateExpression: 'SET mfa_totp_pending = :pending',
        ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(mfa_totp)',
        ExpressionAttributeValues: { ':pending': { ...sealed, created_at: iso(deps.clock()) } },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw alreadyEnrolled();
    throw error;
  }
  const uri = otpauthUri(secret, user.username, issuer);
  return { secret, otpauth_url: uri, qr_svg: await qrSvg(uri) };
}

function wrongCode(): ValidationError {
  return ValidationError.field('code', 'The code is not correct.', 'mfa_code_invalid');
}

/** Confirms an enrolment with a code of the pending secret: the factor is on, and ten recovery codes (shown once). */
export async function confirmTotp(
  deps: FactorDeps,
  userId: number,
  code: string,
): Promise<{ recovery_codes: string[] }> {
  const throttle = codeThrottle(deps, userId);
  await throttle.assertOpen();
  const mfa = mfaOf(await storedUser(deps, userId));
  if (mfa.mfa_totp) throw alreadyEnrolled();
  const pending = mfa.mfa_totp_pending;
  if (!pending)
    throw ValidationError.field(
      'code',
      'Start an enrolment first (POST /api/auth/mfa/totp/).',
      'mfa_not_enrolling',
    );
  const secret = String(await open(deps.keys, pending, totpContext(userId)));
  const step = matchingStep(secret, code, deps.clock());
  if (step === undefined) {
    await throttle.failed();
    throw wrongCode();
  }
  const codes = newRecoveryCodes();
  try {
    await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: keys.user(userId),
        UpdateExpression: 'SET mfa_totp = :totp, mfa_recovery = :codes REMOVE mfa_totp_pending',
        ConditionExpression: 'mfa_totp_pending.ciphertext = :seen AND attribute_not_exists(mfa_totp)',
        ExpressionAttributeValues: {
          ':totp': {
            ciphertext: pending.ciphertext,
            encrypted_key: pending.encrypted_key,
            last_step: step,
            confirmed_at: iso(deps.clock()),
          },
          ':codes': new Set(codes.map(recoveryCodeHash)),
          ':seen': pending.ciphertext,
        },
      }),
    );
  } catch (error) {
    // Another confirmation or a new enrolment won the race: this code confirmed nothing.
    if (isConditionFailure(error)) throw wrongCode();
    throw error;
  }
  await throttle.succeeded();
  deps.log.info('second factor enrolled', { event: 'mfa_enrolled', user_id: userId });
  return { recovery_codes: codes };
}

/** Whether `code` is a current TOTP code of the user's confirmed factor (counted by the code throttle). */
export async function currentCodeMatches(deps: FactorDeps, userId: number, code: string): Promise<boolean> {
  const throttle = codeThrottle(deps, userId);
  await throttle.assertOpen();
  const totp = mfaOf(await storedUser(deps, userId)).mfa_totp;
  if (!totp) return false;
  const secret = String(await open(deps.keys, totp, totpContext(userId)));
  const step = matchingStep(secret, code, deps.clock());
  if (step === undefined || step <= totp.last_step) {
    await throttle.failed();
    return false;
  }
  await throttle.succeeded();
  return true;
}

/**
 * Removes the factor and its recovery codes, and ends every token and session of the user (the token version
 * moves, as a password change does; the caller keeps its own browser session). Undefined when there was none.
 */
export async function removeTotp(deps: FactorDeps, userId: number): Promise<boolean> {
  try {
    await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: keys.user(userId),
        UpdateExpression: `REMOVE mfa_totp, mfa_recovery, mfa_totp_pending ${endEarlierSessions.expression}`,
        ConditionExpression: 'attribute_exists(mfa_totp) OR attribute_exists(mfa_totp_pending)',
        ExpressionAttributeValues: { ...endEarlierSessions.values },
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  deps.log.info('second factor removed', { event: 'mfa_removed', user_id: userId });
  return true;
}
