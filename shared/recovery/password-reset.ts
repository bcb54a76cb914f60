import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { StoredUser } from '../accounts/model';
import { enforcePasswordPolicy } from '../accounts/password-policy';
import { hashPassword } from '../accounts/passwords';
import { endEarlierSessions, findUserByEmail } from '../accounts/users';
import { loginPolicies } from '../auth/login';
import { type Clock, iso } from '../clock';
import type { Config } from '../config';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { assertNotLocked, recordFailure } from '../limits/failures';
import { consumeCall } from '../limits/rate';
import type { Logger } from '../log';
import type { Mailer, MailMessage } from '../mail/mailer';
import { passwordChangedNotice } from '../mail/notices';
import { afterProof } from '../social/proof';
import { type Store, strip, uniqueKey } from '../store/store';
import { onConditionFailure, rethrow, transact } from '../store/writes';
import { answerNoSoonerThan, linkTokenHash, mintLinkToken, storedLinkToken } from './links';

/**
 * Forgotten passwords (docs/security.md, "Forgotten passwords"). Anyone may ask for a reset link for an address;
 * the answer never tells whether the address has an account (the same 202, the same body, no sooner than
 * `answerMs`). An active account's address gets a link to the reset page carrying a token: 32 random bytes
 * (256 bits), stored only as its SHA-256, working once, for `ttlSeconds`, and only while the account's token
 * version is the one it was issued at (every password change, by any route, raises it). Following the link proves
 * the address (social/proof.ts): the new password, the address proven, every other session and token ended, in one
 * transaction with the token's removal.
 */
export interface PasswordResetDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly config: Config;
  readonly mailer: Mailer;
}

const resetKey = (hash: string) => ({ PK: `PWRESET#${hash}`, SK: 'TOKEN' });

interface StoredReset {
  user_id: number;
  /** The address the link went to: once the account has another (an e-mail change), the link ends. */
  email: string;
  token_version: number;
  expires_at_epoch: number;
}

/** What every reset request answers (202), whatever the address. */
export const resetRequested = {
  detail:
    'If an account has this address, a link to choose a new password was sent to it. The link works for a limited time.',
} as const;

/** The reset e-mail: the link, and what to do when the person did not ask. */
function resetMessage(config: Config, to: string, token: string): MailMessage {
  const link = `${config.passwordReset.linkBase}#${token}`;
  const minutes = Math.round(config.passwordReset.ttlSeconds / 60);
  return {
    to,
    subject: 'Choose a new password',
    text: [
      'Someone asked to reset the password of the account with this address.',
      '',
      `To choose a new password, open the link below. It works once, for the next ${minutes} minutes, and signs`,
      'out every other session of the account.',
      '',
      link,
      '',
      'If you did not ask, ignore this message: your password stays as it is.',
    ].join('\n'),
    link,
    secret: token,
  };
}

/**
 * Asks for a reset link. Throttled per address asked for (whether or not it has an account, so the limit tells
 * nothing) and per client address, each with `Retry-After`. A deactivated account gets no link.
 */
export async function requestPasswordReset(
  deps: PasswordResetDeps,
  log: Logger,
  email: string,
  clientIp: string | undefined,
): Promise<typeof resetRequested> {
  const started = performance.now();
  const settings = deps.config.passwordReset;
  const address = uniqueKey(email.trim());
  if (clientIp)
    await consumeCall(
      deps,
      { scope: 'password-reset-client', maxCalls: settings.perClientPerHour, windowSeconds: 3600 },
      clientIp,
    );
  await consumeCall(
    deps,
    { scope: 'password-reset-address', maxCalls: settings.perAddressPerHour, windowSeconds: 3600 },
    address,
  );
  try {
    const user = await findUserByEmail(deps.store, email.trim());
    if (user?.is_active) await sendResetLink(deps, user);
  } catch (error) {
    // The answer is the same whatever happened: the cause is logged (never the address or the token).
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('password reset link not sent', { reason });
  }
  await answerNoSoonerThan(started, settings.answerMs);
  return resetRequested;
}

/**
 * A superuser's "reset a password" for someone else (`POST /api/cloud/users/{user_id}/password-reset/`): the same
 * link as a person's own request, to the account's own address, so the superuser never sees or chooses the
 * password. Under the same per-address limit as the person's own requests (429 with `Retry-After`), so no one can
 * flood an inbox through it. 404 for no such account, 409 for a deactivated one (it gets no link).
 */
export async function sendPasswordResetFor(
  deps: PasswordResetDeps,
  userId: number,
): Promise<{ detail: string }> {
  const user = await storedUser(deps.store, userId);
  if (!user) throw new NotFoundError();
  if (!user.is_active)
    throw new ConflictError({
      code: 'user_inactive',
      message: 'This account is deactivated: activate it before sending it a reset link.',
    });
  const settings = deps.config.passwordReset;
  await consumeCall(
    deps,
    { scope: 'password-reset-address', maxCalls: settings.perAddressPerHour, windowSeconds: 3600 },
    uniqueKey(user.email.trim()),
  );
  await sendResetLink(deps, user);
  return { detail: `A link to choose a new password was sent to ${user.email}.` };
}

async function sendResetLink(deps: PasswordResetDeps, user: { id: number; email: string }) {
  const stored = await deps.store.doc.send(
    new GetCommand({ TableName: deps.store.table, Key: keys.user(user.id), ConsistentRead: true }),
  );
  if (!stored.Item) return;
  const { token, hash } = mintLinkToken();
  const now = Math.floor(deps.clock().getTime() / 1000);
  await deps.store.doc.send(
    new PutCommand({
      TableName: deps.store.table,
      Item: {
        ...resetKey(hash),
        user_id: user.id,
        email: user.email,
        token_version: Number(stored.Item.token_version ?? 0),
        created_at: iso(deps.clock()),
        expires_at_epoch: now + deps.config.passwordReset.ttlSeconds,
      },
    }),
  );
  await deps.mailer.send(resetMessage(deps.config, user.email, token));
}

const invalidToken = () =>
  ValidationError.field(
    'token',
    'This reset link does not work: it was used already, it expired, or the password was changed since. Ask for a new one.',
    'invalid_token',
  );

/**
 * Sets a new password with a reset link's token (the password policy applies, its messages at `password`). A
 * token that is unknown, used, expired, or older than the account's last password change is a 400 at `token`, and
 * counts as a failed sign-in of the client address (`LOGIN_MAX_FAILURES_PER_IP`; a locked address gets 429).
 */
export async function confirmPasswordReset(
  deps: PasswordResetDeps,
  log: Logger,
  input: { token: string; password: string },
  clientIp: string | undefined,
): Promise<{ detail: string }> {
  const policy = loginPolicies(deps.config).ip;
  if (clientIp) await assertNotLocked(deps, policy, clientIp);
  const refused = async () => {
    if (clientIp) await recordFailure(deps, policy, clientIp);
    return invalidToken();
  };
  const reset = await storedLinkToken<StoredReset>(deps, resetKey, input.token);
  const user = reset ? await storedUser(deps.store, reset.user_id) : undefined;
  if (
    !reset ||
    !user?.is_active ||
    (user.token_version ?? 0) !== reset.token_version ||
    uniqueKey(user.email) !== uniqueKey(String(reset.email))
  )
    throw await refused();
  await enforcePasswordPolicy(input.password, [user.username, user.email, user.first_name, user.last_name]);
  const table = deps.store.table;
  await onConditionFailure(
    transact(deps.store, [
      {
        Delete: {
          TableName: table,
          Key: resetKey(linkTokenHash(input.token)),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      {
        Update: {
          TableName: table,
          Key: keys.user(user.id),
          // The link went to the address: it is proven, and what was attached before ends (social/proof.ts).
          UpdateExpression: `SET password_hash = :hash, email_verified = :true ${endEarlierSessions.expression}`,
          ConditionExpression: `is_active = :true AND email = :email AND ${reset.token_version === 0 ? '(attribute_not_exists(token_version) OR token_version = :version)' : 'token_version = :version'}`,
          ExpressionAttributeValues: {
            ':hash': await hashPassword(input.password),
            ':true': true,
            ':version': reset.token_version,
            ':email': user.email,
            ...endEarlierSessions.values,
          },
        },
      },
    ]),
    async (failed, error) => {
      // Used by a parallel confirmation, or the password or the account changed meanwhile.
      if (failed.length > 0) throw await refused();
      return rethrow(error);
    },
  );
  const how = 'with a reset link sent to this address';
  await afterProof(deps, log, user, how);
  try {
    await deps.mailer.send(passwordChangedNotice(user.email, how));
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('password change notice not sent', { user_id: user.id, reason });
  }
  return { detail: 'Your password was changed: sign in with it. Every other session was signed out.' };
}

export async function storedUser(store: Store, id: number): Promise<StoredUser | undefined> {
  const found = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: keys.user(id), ConsistentRead: true }),
  );
  return found.Item ? strip<StoredUser>(found.Item) : undefined;
}
