import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { User } from '../accounts/model';
import { enforcePasswordPolicy } from '../accounts/password-policy';
import { createUser, endEarlierSessions, findUserByEmail, type UserCreationDeps } from '../accounts/users';
import { iso } from '../clock';
import type { Config } from '../config';
import { PermissionDeniedError, ValidationError } from '../errors';
import { consumeCall } from '../limits/rate';
import type { Logger } from '../log';
import type { Mailer, MailMessage } from '../mail/mailer';
import { afterProof } from '../social/proof';
import { uniqueKey } from '../store/store';
import { onConditionFailure, rethrow, transact } from '../store/writes';
import { answerNoSoonerThan, linkTokenHash, mintLinkToken, storedLinkToken } from './links';
import { storedUser } from './password-reset';

/**
 * Self sign-up and the link that confirms an address (docs/security.md, "Sign-up and confirming an address").
 * `SIGN_UP=open` lets anyone make an account; it signs in with its password only once its address is proven, by
 * the link e-mailed to it (or by any other proof: an invitation, a reset). The answer is the same whether or not
 * the address has an account: a new address gets the account and the link; an address with an account that signed
 * up and never confirmed gets a new link; any other account's owner is told that someone tried, and nothing else
 * happens. A sign-up belongs to no site: no tenant's PRE_USER_CREATE subscriber sees it, since it would learn which
 * addresses have no account (docs/api-decisions.md).
 */
export interface SignUpDeps extends UserCreationDeps {
  readonly config: Config;
  readonly mailer: Mailer;
}

export interface SignUp {
  email: string;
  password: string;
  first_name?: string | undefined;
  last_name?: string | undefined;
}

const verificationKey = (hash: string) => ({ PK: `EMAILVERIFY#${hash}`, SK: 'TOKEN' });

interface StoredVerification {
  user_id: number;
  /** The address the link went to: it proves that one only. */
  email: string;
  expires_at_epoch: number;
}

/** What every accepted sign-up answers (202), whatever the address. */
export const signUpReceived = {
  detail:
    'Check your e-mail: a link to confirm the address was sent to it. The account signs in once the address is confirmed.',
} as const;

const signUpClosed = () =>
  new PermissionDeniedError({
    code: 'signup_closed',
    message: 'Sign-up is closed on this platform: ask an organization to invite you.',
  });

function verificationMessage(config: Config, to: string, token: string): MailMessage {
  const link = `${config.signUp.verificationLinkBase}#${token}`;
  const hours = Math.round(config.signUp.verificationTtlSeconds / 3600);
  return {
    to,
    subject: 'Confirm your e-mail address',
    text: [
      'An account was made with this e-mail address. To confirm that the address is yours, open the link below.',
      `It works once, for the next ${hours} hours.`,
      '',
      link,
      '',
      'If you did not sign up, ignore this message: the account cannot be used without it.',
    ].join('\n'),
    link,
    secret: token,
  };
}

function attemptNotice(to: string): MailMessage {
  return {
    to,
    subject: 'Someone tried to sign up with your address',
    text: [
      'Someone tried to make a new account with this e-mail address, which already has one. Nothing was changed.',
      '',
      'If it was you: sign in, or reset your password from the sign-in page. If not, you need not do anything.',
    ].join('\n'),
  };
}

async function sendVerificationLink(deps: SignUpDeps, user: Pick<User, 'id' | 'email'>) {
  const { token, hash } = mintLinkToken();
  const now = Math.floor(deps.clock().getTime() / 1000);
  await deps.store.doc.send(
    new PutCommand({
      TableName: deps.store.table,
      Item: {
        ...verificationKey(hash),
        user_id: user.id,
        email: user.email,
        created_at: iso(deps.clock()),
        expires_at_epoch: now + deps.config.signUp.verificationTtlSeconds,
      },
    }),
  );
  await deps.mailer.send(verificationMessage(deps.config, user.email, token));
}

/**
 * Makes an account for a new address, or answers as if it had (202). Closed: 403. The password policy applies
 * first, with its messages at `password` (for every address alike). Throttled per client address and per address
 * asked for (`PASSWORD_RESETS_PER_HOUR`, shared with resets), with `Retry-After`; the answer comes no sooner than
 * `PASSWORD_RESET_ANSWER_MS`, as a reset request's.
 */
export async function signUp(
  deps: SignUpDeps,
  log: Logger,
  input: SignUp,
  clientIp: string | undefined,
): Promise<typeof signUpReceived> {
  const settings = deps.config.signUp;
  if (!settings.open) throw signUpClosed();
  const started = performance.now();
  const email = input.email.trim();
  if (clientIp)
    await consumeCall(
      deps,
      { scope: 'signup-client', maxCalls: settings.perClientPerHour, windowSeconds: 3600 },
      clientIp,
    );
  await consumeCall(
    deps,
    { scope: 'signup-address', maxCalls: deps.config.passwordReset.perAddressPerHour, windowSeconds: 3600 },
    uniqueKey(email),
  );
  await enforcePasswordPolicy(input.password, [email, input.first_name ?? '', input.last_name ?? '']);
  try {
    const existing = await findUserByEmail(deps.store, email);
    if (!existing) {
      const user = await createUser(deps, {
        email,
        password: input.password,
        first_name: input.first_name,
        last_name: input.last_name,
        self_registered: true,
      });
      await sendVerificationLink(deps, user);
    } else {
      const stored = await storedUser(deps.store, existing.id);
      if (stored?.is_active && stored.self_registered && stored.email_verified !== true)
        await sendVerificationLink(deps, existing);
      else if (stored?.is_active) await deps.mailer.send(attemptNotice(existing.email));
    }
  } catch (error) {
    // Whatever happened (a parallel sign-up of the address won, the mail could not go), the answer is the same.
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('sign-up not completed', { reason });
  }
  await answerNoSoonerThan(started, deps.config.passwordReset.answerMs);
  return signUpReceived;
}

const invalidLink = () =>
  ValidationError.field(
    'token',
    'This confirmation link does not work: it was used already, it expired, or the address changed since. Sign up again, or sign in, for a new one.',
    'invalid_token',
  );

/**
 * Confirms an address with the link's token: the address is proven (the account may sign in with its password),
 * every earlier session ends and whatever was attached before ends (social/proof.ts), in one transaction with the
 * token's removal. A token that is unknown, used, expired, or for an address the account no longer has: 400 at
 * `token`.
 */
export async function confirmAddress(
  deps: SignUpDeps,
  log: Logger,
  token: string,
): Promise<{ detail: string }> {
  const found = await storedLinkToken<StoredVerification>(deps, verificationKey, token);
  const user = found ? await storedUser(deps.store, found.user_id) : undefined;
  if (!found || !user?.is_active || uniqueKey(user.email) !== uniqueKey(found.email)) throw invalidLink();
  const proves = user.email_verified !== true;
  const table = deps.store.table;
  const tokenUsed = {
    Delete: {
      TableName: table,
      Key: verificationKey(linkTokenHash(token)),
      ConditionExpression: 'attribute_exists(PK)',
    },
  };
  const addressProven = {
    Update: {
      TableName: table,
      Key: keys.user(user.id),
      UpdateExpression: `SET email_verified = :true ${endEarlierSessions.expression}`,
      ConditionExpression: 'is_active = :true AND email = :email',
      ExpressionAttributeValues: { ':true': true, ':email': user.email, ...endEarlierSessions.values },
    },
  };
  // Once only, proven or not already (a second link of the same sign-up still works once).
  await onConditionFailure(
    transact(deps.store, proves ? [tokenUsed, addressProven] : [tokenUsed]),
    (failed, error) => {
      if (failed.length > 0) throw invalidLink();
      return rethrow(error);
    },
  );
  if (proves) await afterProof(deps, log, user, 'with a confirmation link sent to this address');
  return { detail: 'Your e-mail address is confirmed: sign in with your password.' };
}
