import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { SessionUser } from '../accounts/model';
import {
  createUser,
  endEarlierSessions,
  findUserByEmail,
  getSessionUser,
  type UserCreationDeps,
} from '../accounts/users';
import { iso } from '../clock';
import { AppError, AuthenticationError, BadRequestError, ConflictError } from '../errors';
import { nextId, type Store } from '../store/store';
import { conditionFailures, onConditionFailure, putNew, transact } from '../store/writes';
import { accountLinkPrefix, socialKeys } from './model';
import { type AttachedLink, attachedBeforeProof } from './proof';
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

/**
 * What the platform knows of one provider login: who the provider says signed in, and whether the platform trusts
 * the provider's verification of that address (providers.ts, `emailTrusted`).
 */
export interface ProviderLogin {
  identity: ProviderIdentity;
  trusted: boolean;
}

const maxSubjectLength = 255;
const attempts = 3;
/** The most provider accounts one user may have linked (the list of them reads one bounded partition prefix). */
export const maxLinksPerUser = 100;

/**
 * What a link records beside its keys: whether the account's address was proven when it was attached (proof.ts),
 * and whether it is a lasting way in (accounts.ts, the unlink guard): a provider the platform trusts vouched for
 * the account's own address, so that losing this link (its site deleted) still leaves the same provider account a
 * way back in by that address.
 */
function linkFacts(login: ProviderLogin, user: { email: string }, addressVerified: boolean) {
  const sameAddress = (login.identity.email ?? '').trim().toLowerCase() === user.email.trim().toLowerCase();
  return { address_verified: addressVerified, lasting: login.trusted && sameAddress };
}

function linkItem(
  target: LinkTarget,
  login: ProviderLogin,
  user: { id: number; email: string },
  addressVerified: boolean,
  linkId: number,
  now: string,
) {
  const { identity } = login;
  return {
    ...socialKeys.identity(target.site, target.providerKey, identity.subject),
    user_id: user.id,
    app_id: target.appId,
    link_id: linkId,
    email: identity.email ?? '',
    // Whether the provider vouched for the address when the link was made (see docs/social-login.md, Known limits).
    email_verified: identity.emailVerified,
    ...linkFacts(login, user, addressVerified),
    created_at: now,
  };
}

/** The user's side of a link: what `/api/auth/social-accounts/` lists, and what its DELETE removes. */
function accountItem(
  target: LinkTarget,
  login: ProviderLogin,
  user: { id: number; email: string },
  addressVerified: boolean,
  linkId: number,
  now: string,
) {
  const { identity } = login;
  return {
    ...socialKeys.account(user.id, linkId),
    id: linkId,
    site: target.site,
    provider_key: target.providerKey,
    subject: identity.subject,
    email: identity.email ?? '',
    ...linkFacts(login, user, addressVerified),
    created_at: now,
    link: socialKeys.identity(target.site, target.providerKey, identity.subject),
  };
}

interface StoredLink extends AttachedLink {
  user_id: number;
  link_id?: number;
}

async function linkOf(deps: UserCreationDeps, target: LinkTarget, subject: string) {
  const result = await deps.store.doc.send(
    new GetCommand({
      TableName: deps.store.table,
      Key: socialKeys.identity(target.site, target.providerKey, subject),
      ConsistentRead: true,
    }),
  );
  return result.Item ? ({ ...result.Item, user_id: Number(result.Item.user_id) } as StoredLink) : undefined;
}

/**
 * Removes a link attached before its user's address was proven (and its user side), met on its way in: it signs
 * nobody in any more (proof.ts), and the provider account is then treated as linked to no one.
 */
async function endDeadLink(deps: UserCreationDeps, target: LinkTarget, subject: string, link: StoredLink) {
  const table = deps.store.table;
  await deps.store.doc
    .send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: table,
              Key: socialKeys.identity(target.site, target.providerKey, subject),
              ConditionExpression: 'user_id = :uid',
              ExpressionAttributeValues: { ':uid': link.user_id },
            },
          },
          ...(link.link_id !== undefined
            ? [{ Delete: { TableName: table, Key: socialKeys.account(link.user_id, link.link_id) } }]
            : []),
          {
            Delete: {
              TableName: table,
              Key: socialKeys.unverifiedLink(link.user_id, target.site, target.providerKey, subject),
            },
          },
        ],
      }),
    )
    .catch((error) => {
      // Ended meanwhile by another request, or by the tidy-up after the proof: nothing left to do.
      if (!conditionFailures(error)) throw error;
    });
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

/**
 * The condition that the user is active and at the token version that was read: no proof of the address, password
 * change or deactivation happened since (each raises the version), so the link is recorded with the address's
 * state as read and, for an explicit link, the credentials that asked for it are still current.
 */
function unchangedUser(user: SessionUser) {
  return {
    ConditionExpression: `is_active = :yes AND ${user.token_version === 0 ? '(attribute_not_exists(token_version) OR token_version = :tv)' : 'token_version = :tv'}`,
    ExpressionAttributeValues: { ':yes': true, ':tv': user.token_version },
  };
}

/**
 * Links the account to an existing active user; false when the link or the user changed meanwhile (read again).
 * `proves`: a provider the platform trusts vouched for the user's own address, and the address was not proven yet:
 * the same transaction marks it proven and ends every earlier session (proof.ts); links attached before are dead
 * from then on.
 */
async function attach(
  deps: UserCreationDeps,
  target: LinkTarget,
  login: ProviderLogin,
  user: SessionUser,
  proves: boolean,
) {
  if ((await countUserLinks(deps.store, user.id)) >= maxLinksPerUser)
    throw new ConflictError({
      code: 'too_many_links',
      message: `This account already has ${maxLinksPerUser} linked provider accounts: unlink one first.`,
    });
  const table = deps.store.table;
  const linkId = await nextId(deps.store, 'social-account');
  const now = iso(deps.clock());
  const verified = user.email_verified || proves;
  const condition = unchangedUser(user);
  const userItem = proves
    ? {
        Update: {
          TableName: table,
          Key: keys.user(user.id),
          UpdateExpression: `SET email_verified = :proven ${endEarlierSessions.expression}`,
          ...condition,
          ExpressionAttributeValues: {
            ...condition.ExpressionAttributeValues,
            ':proven': true,
            ...endEarlierSessions.values,
          },
        },
      }
    : { ConditionCheck: { TableName: table, Key: keys.user(user.id), ...condition } };
  return onConditionFailure(
    transact(deps.store, [
      putNew(table, linkItem(target, login, user, verified, linkId, now)),
      userItem,
      putNew(table, accountItem(target, login, user, verified, linkId, now)),
    ]).then(() => true),
    () => false,
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
  login: ProviderLogin,
  email: string,
  attempt: number,
) {
  const { identity, trusted } = login;
  const linkId = await nextId(deps.store, 'social-account');
  try {
    const user = await createUser(
      deps,
      {
        email,
        username: usernameFor(email, attempt),
        first_name: identity.firstName.slice(0, 150),
        last_name: identity.lastName.slice(0, 150),
        // A provider the platform trusts proved the address; any other may have named someone else's.
        email_verified: trusted,
      },
      {
        // A first sign-in creates a user of this site: its apps' PRE_USER_CREATE subscribers may veto it.
        scope: { site: target.site },
        alsoCreate: (user) => {
          const now = iso(deps.clock());
          // An address the platform cannot trust may be someone else's: the link is then one attached before the
          // address was proven, and its owner ends it by proving the address (proof.ts).
          return [
            linkItem(target, login, user, trusted, linkId, now),
            accountItem(target, login, user, trusted, linkId, now),
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
 * The user the provider account is linked to, when the link still counts: a link attached before its user's
 * address was proven is removed here and counts as none (proof.ts).
 */
async function linkedUser(deps: UserCreationDeps, target: LinkTarget, subject: string) {
  const link = await linkOf(deps, target, subject);
  if (!link) return undefined;
  const user = await activeUser(deps, link.user_id);
  if (!attachedBeforeProof(user, link)) return user;
  await endDeadLink(deps, target, subject, link);
  return undefined;
}

/** What a sign-in through a provider the platform trusts proved, to tidy up after (proof.ts). */
export interface SignedIn {
  user: SessionUser;
  created: boolean;
  /** This sign-in proved the address of an existing account (a trusted provider attached to it). */
  proved: boolean;
}

/** The user a provider account signs in as, and whether this login created it. */
export async function userForIdentity(
  deps: UserCreationDeps,
  target: LinkTarget,
  login: ProviderLogin,
): Promise<SignedIn> {
  const { identity, trusted } = login;
  checkSubject(identity);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const linked = await linkedUser(deps, target, identity.subject);
    if (linked) return { user: linked, created: false, proved: false };
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
      const user = await activeUser(deps, existing.id);
      const proves = !user.email_verified;
      if (await attach(deps, target, login, user, proves))
        return { user: await activeUser(deps, existing.id), created: false, proved: proves };
      continue;
    }
    const id = await create(deps, target, login, email, attempt);
    if (id !== undefined) return { user: await activeUser(deps, id), created: true, proved: false };
  }
  throw new ConflictError({
    code: 'login_conflict',
    message: 'Another sign-in with this account is under way: try again.',
  });
}

/**
 * Links the provider account to the signed-in user who started this login (the explicit link). Already linked to
 * that user: nothing to do; linked to another user: 409. The link is written on condition that the user is still at
 * the token version read here: a proof of the address, a password change or a deactivation meanwhile (each ends
 * the credentials that asked) refuses it with 401.
 */
export async function linkIdentity(
  deps: UserCreationDeps,
  target: LinkTarget,
  login: ProviderLogin,
  userId: number,
): Promise<SessionUser> {
  const { identity } = login;
  checkSubject(identity);
  const user = await activeUser(deps, userId);
  for (let attempt = 0; attempt < attempts; attempt++) {
    const linked = await linkedUser(deps, target, identity.subject);
    if (linked?.id === userId) return linked;
    if (linked)
      throw new ConflictError({
        code: 'provider_account_linked',
        message: 'This provider account is already linked to another user.',
      });
    if (await attach(deps, target, login, user, false)) return activeUser(deps, userId);
    if ((await activeUser(deps, userId)).token_version !== user.token_version)
      throw new AuthenticationError({
        message: 'Your session ended while linking: sign in again.',
        code: 'session_ended',
      });
  }
  throw new ConflictError({
    code: 'login_conflict',
    message: 'Another sign-in with this account is under way: try again.',
  });
}
