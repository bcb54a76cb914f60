import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { SessionUser } from '../accounts/model';
import { createUser, findUserByEmail, getSessionUser, type UserCreationDeps } from '../accounts/users';
import { iso } from '../clock';
import { AppError, AuthenticationError, BadRequestError, ConflictError } from '../errors';
import { nextId, type Store } from '../store/store';
import { onConditionFailure, putNew, transact } from '../store/writes';
import { accountLinkPrefix, socialKeys } from './model';
import type { ProviderIdentity } from './providers';

/**
 * Which user a provider account signs in as (docs/social-login.md, "Linking"): the user already linked to it;
 * else, for a new address, a new user made by the one user-creation service with the link in the same DynamoDB
 * transaction. An address that already has an account is attached to it only when the platform trusts the
 * provider's verification of it (a provider with a fixed, well-known issuer that verifies addresses; never a
 * tenant's own OpenID Connect provider) and never to a superuser: otherwise the sign-in is refused, and the user
 * links the provider from their account (`linkTo`). A race with another first login of the same account (or
 * address) loses a condition and reads again, so no duplicate user is ever created.
 */
export interface LinkTarget {
  site: string;
  providerKey: string;
  appId: number;
}

const maxSubjectLength = 255;
const attempts = 3;
/** The most provider accounts one user may have linked (the list of them reads one bounded partition prefix). */
export const maxLinksPerUser = 100;

function linkItem(
  target: LinkTarget,
  identity: ProviderIdentity,
  userId: number,
  linkId: number,
  now: string,
) {
  return {
    ...socialKeys.identity(target.site, target.providerKey, identity.subject),
    user_id: userId,
    app_id: target.appId,
    link_id: linkId,
    email: identity.email ?? '',
    // Whether the provider vouched for the address when the link was made (see docs/social-login.md, Known limits).
    email_verified: identity.emailVerified,
    created_at: now,
  };
}

/** The user's side of a link: what `/api/auth/social-accounts/` lists, and what its DELETE removes. */
function accountItem(
  target: LinkTarget,
  identity: ProviderIdentity,
  userId: number,
  linkId: number,
  now: string,
) {
  return {
    ...socialKeys.account(userId, linkId),
    id: linkId,
    site: target.site,
    provider_key: target.providerKey,
    subject: identity.subject,
    email: identity.email ?? '',
    created_at: now,
    link: socialKeys.identity(target.site, target.providerKey, identity.subject),
  };
}

function unverifiedLinkItem(target: LinkTarget, identity: ProviderIdentity, userId: number, linkId: number) {
  return {
    ...socialKeys.unverifiedLink(userId, target.site, target.providerKey, identity.subject),
    link: socialKeys.identity(target.site, target.providerKey, identity.subject),
    account: socialKeys.account(userId, linkId),
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

/** How many provider accounts are linked to the user. */
export async function countUserLinks(store: Store, userId: number): Promise<number> {
  const result = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': socialKeys.account(userId, 0).PK, ':prefix': accountLinkPrefix },
      Select: 'COUNT',
      ConsistentRead: true,
    }),
  );
  return result.Count ?? 0;
}

/** Links the account to an existing active user; false when another login linked the account first. */
async function attach(
  deps: UserCreationDeps,
  target: LinkTarget,
  identity: ProviderIdentity,
  userId: number,
) {
  if ((await countUserLinks(deps.store, userId)) >= maxLinksPerUser)
    throw new ConflictError({
      code: 'too_many_links',
      message: `This account already has ${maxLinksPerUser} linked provider accounts: unlink one first.`,
    });
  const table = deps.store.table;
  const linkId = await nextId(deps.store, 'social-account');
  const now = iso(deps.clock());
  return onConditionFailure(
    transact(deps.store, [
      putNew(table, linkItem(target, identity, userId, linkId, now)),
      {
        ConditionCheck: {
          TableName: table,
          Key: keys.user(userId),
          ConditionExpression: 'is_active = :yes',
          ExpressionAttributeValues: { ':yes': true },
        },
      },
      putNew(table, accountItem(target, identity, userId, linkId, now)),
    ]).then(() => true),
    (failed) => {
      if (failed.includes(1))
        throw new AuthenticationError({ message: 'User not found or inactive.', code: 'user_inactive' });
      return false;
    },
  );
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
  trusted: boolean,
  attempt: number,
) {
  const linkId = await nextId(deps.store, 'social-account');
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
        alsoCreate: (user) => {
          const now = iso(deps.clock());
          return [
            linkItem(target, identity, user.id, linkId, now),
            accountItem(target, identity, user.id, linkId, now),
            // An address the platform cannot trust may be someone else's: remember the link, so that the
            // address's owner ends it on proving the address (shared/social/unverified-links.ts).
            ...(trusted ? [] : [unverifiedLinkItem(target, identity, user.id, linkId)]),
          ];
        },
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

function checkSubject(identity: ProviderIdentity): void {
  if (!identity.subject || identity.subject.length > maxSubjectLength)
    throw new BadRequestError({
      code: 'provider_account_invalid',
      message: 'The provider did not name the account.',
    });
}

/** The refusal of a sign-in whose address has an account that this provider may not vouch for. */
export const linkRequiredMessage =
  'An account with this e-mail address already exists: sign in and link this provider from your account.';

/**
 * The user a provider account signs in as, and whether this login created it. `trusted`: the platform trusts the
 * provider's verification of the address (providers.ts, `emailTrusted`).
 */
export async function userForIdentity(
  deps: UserCreationDeps,
  target: LinkTarget,
  identity: ProviderIdentity,
  trusted: boolean,
): Promise<{ user: SessionUser; created: boolean }> {
  checkSubject(identity);
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
      // Only the account's own credentials may add a provider it cannot trust, and a superuser's always.
      if (!trusted || existing.is_superuser)
        throw new BadRequestError({ code: 'link_required', message: linkRequiredMessage });
      if (await attach(deps, target, identity, existing.id))
        return { user: await activeUser(deps, existing.id), created: false };
      continue;
    }
    const id = await create(deps, target, identity, email, trusted, attempt);
    if (id !== undefined) return { user: await activeUser(deps, id), created: true };
  }
  throw new ConflictError({
    code: 'login_conflict',
    message: 'Another sign-in with this account is under way: try again.',
  });
}

/**
 * Links the provider account to the signed-in user who started this login (the explicit link). Already linked to
 * that user: nothing to do; linked to another user: 409.
 */
export async function linkIdentity(
  deps: UserCreationDeps,
  target: LinkTarget,
  identity: ProviderIdentity,
  userId: number,
): Promise<SessionUser> {
  checkSubject(identity);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const linked = await linkedUserId(deps, target, identity.subject);
    if (linked === userId) return activeUser(deps, userId);
    if (linked !== undefined)
      throw new ConflictError({
        code: 'provider_account_linked',
        message: 'This provider account is already linked to another user.',
      });
    if (await attach(deps, target, identity, userId)) return activeUser(deps, userId);
  }
  throw new ConflictError({
    code: 'login_conflict',
    message: 'Another sign-in with this account is under way: try again.',
  });
}
