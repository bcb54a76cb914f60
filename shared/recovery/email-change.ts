import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { StoredUser } from '../accounts/model';
import { endEarlierSessions, findUserByEmail } from '../accounts/users';
import { confirmPassword, type LoginDeps } from '../auth/login';
import { iso } from '../clock';
import { ValidationError } from '../errors';
import { consumeCall } from '../limits/rate';
import type { Logger } from '../log';
import type { Mailer, MailMessage } from '../mail/mailer';
import { afterProof } from '../social/proof';
import { uniqueKey } from '../store/store';
import { onConditionFailure, rethrow, type TransactItem, transact } from '../store/writes';
import { answerNoSoonerThan, linkTokenHash, mintLinkToken, storedLinkToken } from './links';
import { storedUser } from './password-reset';
import { confirmAddress, type SignUpDeps } from './sign-up';

/**
 * Changing one's e-mail address (docs/security.md, "Changing the e-mail address"). The signed-in person asks with
 * the current password; nothing changes until the link e-mailed to the NEW address is followed (the link is a
 * token as every e-mailed link's: 256 bits, kept as its SHA-256, once, for `EMAIL_VERIFICATION_TTL_SECONDS`), so an
 * address is never taken without its inbox. The old address is told at once, and again when the change is done.
 * The answer does not say whether the new address has an account: when it has, its owner is told instead and
 * nothing else happens. Following the link proves the new address; an account whose address was never proven is
 * treated as at every first proof (social/proof.ts: what was attached before ends, and every session).
 */
export type EmailChangeDeps = SignUpDeps & LoginDeps & { readonly mailer: Mailer };

const changeKey = (hash: string) => ({ PK: `EMAILCHANGE#${hash}`, SK: 'TOKEN' });

interface StoredChange {
  user_id: number;
  /** The address the account had when the change was asked: the link works only while it still has it. */
  from_email: string;
  to_email: string;
  /** The account's token version then: a password change or reset since (which raises it) ends the link. */
  token_version: number;
  expires_at_epoch: number;
}

/** What every accepted request answers (202), whether or not the new address has an account. */
export const changeRequested = {
  detail:
    'Check the new address: a link to confirm it was sent there. Your address changes once the link is followed.',
} as const;

function changeLinkMessage(deps: EmailChangeDeps, to: string, token: string): MailMessage {
  const link = `${deps.config.signUp.verificationLinkBase}#${token}`;
  const hours = Math.round(deps.config.signUp.verificationTtlSeconds / 3600);
  return {
    to,
    subject: 'Confirm your new e-mail address',
    text: [
      'Someone asked to make this the e-mail address of their account. To confirm that it is yours, open the link below.',
      `It works once, for the next ${hours} hours.`,
      '',
      link,
      '',
      'If you did not ask, ignore this message: nothing changes without it.',
    ].join('\n'),
    link,
    secret: token,
  };
}

const askedNotice = (to: string): MailMessage => ({
  to,
  subject: 'A change of your e-mail address was asked',
  text: [
    'Someone signed in to your account asked to change its e-mail address. Nothing changes until the link sent to',
    'the new address is followed.',
    '',
    'If it was not you, reset your password from the sign-in page: that also ends the link.',
  ].join('\n'),
});

const takenNotice = (to: string): MailMessage => ({
  to,
  subject: 'Someone tried to move an account to your address',
  text: [
    'Someone asked to make this the e-mail address of another account. This address has an account already, so',
    'nothing was changed. You need not do anything.',
  ].join('\n'),
});

const changedNotice = (to: string, now: string): MailMessage => ({
  to,
  subject: 'Your e-mail address was changed',
  text: [
    `The e-mail address of your account was changed to ${now}, with a link sent to that address.`,
    '',
    'If you did not do this, contact an administrator of the platform.',
  ].join('\n'),
});

/**
 * Asks for a change of the signed-in user's address: the current password is required (a wrong one is a 400 at
 * `current_password` and counts as a failed sign-in of the account); the new address must differ (400 at
 * `email`). Throttled per account (`PASSWORD_RESETS_PER_HOUR`), with `Retry-After`; answered no sooner than
 * `PASSWORD_RESET_ANSWER_MS`, as a reset request.
 */
export async function requestEmailChange(
  deps: EmailChangeDeps,
  log: Logger,
  userId: number,
  input: { email: string; current_password: string },
  clientIp: string | undefined,
): Promise<typeof changeRequested> {
  const started = performance.now();
  const to = input.email.trim();
  await consumeCall(
    deps,
    {
      scope: 'email-change-user',
      maxCalls: deps.config.passwordReset.perAddressPerHour,
      windowSeconds: 3600,
    },
    String(userId),
  );
  if (!(await confirmPassword(deps, userId, input.current_password, clientIp)))
    throw ValidationError.field('current_password', 'The current password is not correct.', 'wrong_password');
  const user = await storedUser(deps.store, userId);
  if (!user?.is_active)
    throw ValidationError.field('current_password', 'The current password is not correct.', 'wrong_password');
  if (uniqueKey(user.email) === uniqueKey(to))
    throw ValidationError.field('email', 'That is already the address of your account.', 'unchanged');
  try {
    const holder = await findUserByEmail(deps.store, to);
    if (holder) await deps.mailer.send(takenNotice(holder.email));
    else await sendChangeLink(deps, user, to);
    await deps.mailer.send(askedNotice(user.email));
  } catch (error) {
    // The answer is the same whatever happened: the cause is logged (never an address or the token).
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('e-mail change link not sent', { user_id: userId, reason });
  }
  // No sooner than a reset request answers: the time does not tell whether the new address has an account.
  await answerNoSoonerThan(started, deps.config.passwordReset.answerMs);
  return changeRequested;
}

async function sendChangeLink(deps: EmailChangeDeps, user: StoredUser, to: string) {
  const { token, hash } = mintLinkToken();
  const now = Math.floor(deps.clock().getTime() / 1000);
  const item: StoredChange & Record<string, unknown> = {
    ...changeKey(hash),
    user_id: user.id,
    from_email: user.email,
    to_email: to,
    token_version: user.token_version ?? 0,
    created_at: iso(deps.clock()),
    expires_at_epoch: now + deps.config.signUp.verificationTtlSeconds,
  };
  await deps.store.doc.send(new PutCommand({ TableName: deps.store.table, Item: item }));
  await deps.mailer.send(changeLinkMessage(deps, to, token));
}

const invalidChangeLink = (why = 'it was used already, it expired, or the address changed since') =>
  ValidationError.field(
    'token',
    `This confirmation link does not work: ${why}. Ask for a new one.`,
    'invalid_token',
  );

/**
 * Follows a link e-mailed to an address (`POST /api/auth/email/verify/`): a change of address when the token is
 * one, else the confirmation of a sign-up's address (shared/recovery/sign-up.ts).
 */
export async function confirmEmailLink(
  deps: EmailChangeDeps,
  log: Logger,
  token: string,
): Promise<{ detail: string }> {
  const change = await storedLinkToken<StoredChange>(deps, changeKey, token);
  return change ? confirmEmailChange(deps, log, token, change) : confirmAddress(deps, log, token);
}

/**
 * Moves the account to the new address in one transaction: the token used once, the user's address (and its
 * username, when that was the old address) changed only while it is still the one the change was asked from, the
 * old sentinels released and the new ones taken. An address (or username) taken meanwhile by another account is a
 * 400 at `token`, and nothing changes.
 */
async function confirmEmailChange(
  deps: EmailChangeDeps,
  log: Logger,
  token: string,
  change: StoredChange,
): Promise<{ detail: string }> {
  const user = await storedUser(deps.store, change.user_id);
  if (
    !user?.is_active ||
    uniqueKey(user.email) !== uniqueKey(change.from_email) ||
    (user.token_version ?? 0) !== change.token_version
  )
    throw invalidChangeLink();
  const table = deps.store.table;
  const proves = user.email_verified !== true;
  const movesUsername = uniqueKey(user.username) === uniqueKey(user.email);
  const sentinels = (kind: 'emailSentinel' | 'usernameSentinel', from: string): TransactItem[] => [
    {
      Delete: {
        TableName: table,
        Key: keys[kind](uniqueKey(from)),
        ConditionExpression: 'user_id = :id',
        ExpressionAttributeValues: { ':id': user.id },
      },
    },
    {
      Put: {
        TableName: table,
        Item: { ...keys[kind](uniqueKey(change.to_email)), user_id: user.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: table,
        Key: changeKey(linkTokenHash(token)),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
    {
      Update: {
        TableName: table,
        Key: keys.user(user.id),
        UpdateExpression: `SET email = :to, email_verified = :true${movesUsername ? ', username = :to' : ''}${proves ? ` ${endEarlierSessions.expression}` : ''}`,
        ConditionExpression: `is_active = :true AND email = :from AND ${change.token_version === 0 ? '(attribute_not_exists(token_version) OR token_version = :version)' : 'token_version = :version'}`,
        ExpressionAttributeValues: {
          ':version': change.token_version,
          ':to': change.to_email,
          ':from': user.email,
          ':true': true,
          ...(proves ? endEarlierSessions.values : {}),
        },
      },
    },
    ...sentinels('emailSentinel', user.email),
    ...(movesUsername ? sentinels('usernameSentinel', user.username) : []),
  ];
  await onConditionFailure(transact(deps.store, items), (failed, error) => {
    if (failed.some((index) => index === 3 || index === 5))
      throw invalidChangeLink('the address has an account now');
    if (failed.length > 0) throw invalidChangeLink();
    return rethrow(error);
  });
  const moved = { id: user.id, email: change.to_email };
  if (proves) await afterProof(deps, log, moved, 'with a link sent to the new address');
  try {
    await deps.mailer.send(changedNotice(user.email, change.to_email));
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('e-mail change notice not sent', { user_id: user.id, reason });
  }
  return {
    detail: proves
      ? `Your e-mail address is now ${change.to_email}. It is the first proven address of the account, so every session was signed out: sign in again.`
      : `Your e-mail address is now ${change.to_email}.`,
  };
}
