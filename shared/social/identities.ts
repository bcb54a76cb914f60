import { randomBytes } from 'node:crypto';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { SessionUser } from '../accounts/model';
import { createUser, findUserByEmail, getSessionUser, type UserCreationDeps } from '../accounts/users';
import { iso } from '../clock';
import { AppError, AuthenticationError, BadRequestError, ConflictError } from '../errors';
import { failedConditions, putNew } from '../store/store';
import { socialKeys } from './model';
import type { ProviderIdentity } from './providers';

/**
 * Which user a provider account signs in as (docs/social-login.md, "Linking"): the user already linked to it;
 * else the user with the same e-mail address, only when the provider asserts the address is verified; else a
 * new user, made by the one user-creation service with the link in the same DynamoDB transaction. A race with
 * another first login of the same account (or address) loses a condition and reads again, so no duplicate user is
 * ever created.
 */
export interface LinkTarget {
  site: string;
  providerKey: string;
  appId: number;
}

const maxSubjectLength = 255;
const attempts = 3;

function linkItem(target: LinkTarget, identity: ProviderIdentity, userId: number, now: string) {
  return {
    ...socialKeys.identity(target.site, target.providerKey, identity.subject),
    user_id: userId,
    app_id: target.appId,
    email: identity.email ?? '',
    // Whether the provider vouched for the address when the link was made (see docs/social-login.md, Known limits).
    email_verified: identity.emailVerified,
    created_at: now,
  };
}

function unverifiedLinkItem(target: LinkTarget, identity: ProviderIdentity, userId: number) {
  return {
    ...socialKeys.unverifiedLink(userId, target.site, target.providerKey, identity.subject),
    link: socialKeys.identity(target.site, target.providerKey, identity.subject),
  };
}

async function linkedUserId(deps: UserCreationDeps, target: LinkTarget, subject: string) {
  const result = await deps.store.doc.send(
    new GetCommand({
      TableName: deps.store.table,
      Key: socialKeys.identity(target.site, target.providerKey, subject),
      ConsistentRead: true,
    }),
  );
  return result.Item ? Number(result.Item.user_id) : undefined;
}

async function activeUser(deps: UserCreationDeps, id: number): Promise<SessionUser> {
  const user = await getSessionUser(deps.store, id);
  if (!user?.is_active)
    throw new AuthenticationError({ message: 'User not found or inactive.', code: 'user_inactive' });
  return user;
}

/** Links the account to an existing active user; false when another login linked the account first. */
async function attach(
  deps: UserCreationDeps,
  target: LinkTarget,
  identity: ProviderIdentity,
  userId: number,
) {
  const table = deps.store.table;
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          putNew(table, linkItem(target, identity, userId, iso(deps.clock()))),
          {
            ConditionCheck: {
              TableName: table,
              Key: keys.user(userId),
              ConditionExpression: 'is_active = :yes',
              ExpressionAttributeValues: { ':yes': true },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    const failed = failedConditions(error);
    if (!failed) throw error;
    if (failed.includes(1))
      throw new AuthenticationError({ message: 'User not found or inactive.', code: 'user_inactive' });
    return false;
  }
}

function usernameFor(email: string, attempt: number): string {
  if (attempt === 0) return email;
  const local = (email.split('@')[0] ?? 'user').replace(/[^\w.+-]/g, '').slice(0, 100) || 'user';
  return `${local}.${randomBytes(3).toString('hex')}`;
}

/** Creates the user and its link together; undefined when a concurrent login got there first. */
async function create(
  deps: UserCreationDeps,
  target: LinkTarget,
  identity: ProviderIdentity,
  email: string,
  attempt: number,
) {
  try {
    const user = await createUser(
      deps,
      {
        email,
        username: usernameFor(email, attempt),
        first_name: identity.firstName.slice(0, 150),
        last_name: identity.lastName.slice(0, 150),
      },
      {
        // A first sign-in creates a user of this site: its apps' PRE_USER_CREATE subscribers may veto it.
        scope: { site: target.site },
        alsoCreate: (user) => [
          linkItem(target, identity, user.id, iso(deps.clock())),
          // An address the provider did not verify may be someone else's: remember the link, so that the
          // address's owner ends it on proving the address (shared/social/unverified-links.ts).
          ...(identity.emailVerified ? [] : [unverifiedLinkItem(target, identity, user.id)]),
        ],
      },
    );
    return user.id;
  } catch (error) {
    // The link or the e-mail was taken meanwhile, or the username was: read again.
    if (error instanceof ConflictError || (error instanceof AppError && error.code === 'user_exists'))
      return undefined;
    throw error;
  }
}

/** The user a provider account signs in as, and whether this login created it. */
export async function userForIdentity(
  deps: UserCreationDeps,
  target: LinkTarget,
  identity: ProviderIdentity,
): Promise<{ user: SessionUser; created: boolean }> {
  if (!identity.subject || identity.subject.length > maxSubjectLength)
    throw new BadRequestError({
      code: 'provider_account_invalid',
      message: 'The provider did not name the account.',
    });
  for (let attempt = 0; attempt < attempts; attempt++) {
    const linked = await linkedUserId(deps, target, identity.subject);
    if (linked !== undefined) return { user: await activeUser(deps, linked), created: false };
    const email = identity.email?.trim();
    if (!email || email.length > 254 || !email.includes('@'))
      throw new BadRequestError({
        code: 'email_required',
        message: 'The provider did not share an e-mail address for this account.',
      });
    const existing = await findUserByEmail(deps.store, email);
    if (existing) {
      if (!identity.emailVerified)
        throw new BadRequestError({
          code: 'email_not_verified',
          message:
            'An account with this e-mail address exists, and the provider does not assert that the address is verified: sign in with that account instead.',
        });
      if (await attach(deps, target, identity, existing.id))
        return { user: await activeUser(deps, existing.id), created: false };
      continue;
    }
    const id = await create(deps, target, identity, email, attempt);
    if (id !== undefined) return { user: await activeUser(deps, id), created: true };
  }
  throw new ConflictError({
    code: 'login_conflict',
    message: 'Another sign-in with this account is under way: try again.',
  });
}
