import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, iso } from '../clock';
import { nextId, queryAll, type Store, strip, uniqueKey } from '../store/store';
import { isConditionFailure } from '../store/writes';
import { gsi, keys } from './keys';
import { publicUser, type SessionUser, type StoredUser, type User } from './model';
import { enforcePasswordPolicy } from './password-policy';
import { hashPassword, verifyPassword } from './passwords';
import type { CreationScope, UserCreationEvents } from './user-creation-events';
import { insertUser } from './user-repository';

export interface AccountsDeps {
  store: Store;
  clock: Clock;
}

/** What the user-creation service needs besides the store: the user-creation events port. */
export interface UserCreationDeps extends AccountsDeps {
  events: UserCreationEvents;
}

export interface NewUser {
  email: string;
  username?: string | undefined;
  password?: string | null | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  is_active?: boolean | undefined;
  is_superuser?: boolean | undefined;
  /** Only a path that proved the address (a trusted provider's verified e-mail) creates a user with it proven. */
  email_verified?: boolean | undefined;
  /** Made by its own sign-up: no password sign-in until the address is proven (shared/recovery/sign-up.ts). */
  self_registered?: boolean | undefined;
}

export const usernamePattern = '^[\\w.@+-]+$';

/**
 * Creates a user. Every path that creates users (admin API, invitations, social login, bootstrap) goes through
 * this one service, so that user-creation events wrap exactly one place: the password policy, then the proposed
 * user, then PRE_USER_CREATE (a veto leaves nothing saved), then the save, then POST_USER_CREATE. The scope (the
 * site or organization the user is created in) decides whose subscriptions fire; without it none do.
 */
export async function createUser(
  deps: UserCreationDeps,
  input: NewUser,
  options: { scope?: CreationScope; alsoCreate?: (user: User) => Record<string, unknown>[] } = {},
): Promise<User> {
  const email = input.email.trim();
  const username = (input.username ?? email).trim();
  if (input.password) {
    await enforcePasswordPolicy(input.password, [
      username,
      email,
      input.first_name ?? '',
      input.last_name ?? '',
    ]);
  }
  const user: StoredUser = {
    id: await nextId(deps.store, 'user'),
    uuid: randomUUID(),
    username,
    email,
    first_name: input.first_name ?? '',
    last_name: input.last_name ?? '',
    is_active: input.is_active ?? true,
    is_superuser: input.is_superuser ?? false,
    date_joined: iso(deps.clock()),
    last_login: null,
    password_hash: input.password ? await hashPassword(input.password) : null,
    email_verified: input.email_verified ?? false,
    ...(input.self_registered ? { self_registered: true } : {}),
  };
  await deps.events.beforeCreate(publicUser(user), options.scope);
  await insertUser(deps.store, user, options.alsoCreate?.(publicUser(user)) ?? []);
  const created = publicUser(user);
  await deps.events.afterCreate(created, options.scope);
  return created;
}

async function getStoredUser(store: Store, id: number): Promise<StoredUser | undefined> {
  const result = await store.doc.send(new GetCommand({ TableName: store.table, Key: keys.user(id) }));
  return result.Item ? strip<StoredUser>(result.Item) : undefined;
}

export async function getUser(store: Store, id: number): Promise<User | undefined> {
  const user = await getStoredUser(store, id);
  return user ? publicUser(user) : undefined;
}

function sessionUser(user: StoredUser): SessionUser {
  return {
    ...publicUser(user),
    token_version: user.token_version ?? 0,
    email_verified: user.email_verified === true,
  };
}

/** The user of an authenticated request, with the token version its tokens must carry. */
export async function getSessionUser(store: Store, id: number): Promise<SessionUser | undefined> {
  const user = await getStoredUser(store, id);
  return user ? sessionUser(user) : undefined;
}

/** Whether `password` is the user's current password (constant time; false for unknown users). */
export async function passwordMatches(store: Store, id: number, password: string): Promise<boolean> {
  const user = await getStoredUser(store, id);
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  return ok && user !== undefined;
}

/** The stored user a unique sentinel (username or e-mail) points at; undefined if none. */
async function storedUserBySentinel(
  store: Store,
  key: { PK: string; SK: string },
): Promise<StoredUser | undefined> {
  const result = await store.doc.send(new GetCommand({ TableName: store.table, Key: key }));
  return result.Item ? getStoredUser(store, Number(result.Item.user_id)) : undefined;
}

export async function findUserByEmail(store: Store, email: string): Promise<User | undefined> {
  const user = await storedUserBySentinel(store, keys.emailSentinel(uniqueKey(email)));
  return user ? publicUser(user) : undefined;
}

export async function findUserByUsername(store: Store, username: string): Promise<User | undefined> {
  const user = await storedUserBySentinel(store, keys.usernameSentinel(uniqueKey(username)));
  return user ? publicUser(user) : undefined;
}

/**
 * The user a login names (username, then e-mail address), read once for a sign-in: who to count the attempt
 * against, and what `checkCredentials` checks the password of.
 */
export async function findLoginCandidate(store: Store, login: string): Promise<StoredUser | undefined> {
  const key = uniqueKey(login);
  return (
    (await storedUserBySentinel(store, keys.usernameSentinel(key))) ??
    (await storedUserBySentinel(store, keys.emailSentinel(key)))
  );
}

/** Looks a user up by username, then by e-mail address. */
export async function findUserByLogin(store: Store, login: string): Promise<User | undefined> {
  const user = await findLoginCandidate(store, login);
  return user ? publicUser(user) : undefined;
}

/**
 * The session user when `password` is the candidate's and the account is active, recording the sign-in time;
 * undefined otherwise. The password is hashed even for no candidate, so that timing does not tell which logins exist.
 */
export async function checkCredentials(
  deps: AccountsDeps,
  candidate: StoredUser | undefined,
  password: string,
): Promise<SessionUser | undefined> {
  const ok = await verifyPassword(password, candidate?.password_hash ?? DUMMY_HASH);
  if (!candidate || !ok || !candidate.is_active) return undefined;
  // An account made by its own sign-up signs in once its address is proven (its link followed, or any other proof).
  if (candidate.self_registered && candidate.email_verified !== true) return undefined;
  await deps.store.doc.send(
    new UpdateCommand({
      TableName: deps.store.table,
      Key: keys.user(candidate.id),
      UpdateExpression: 'SET last_login = :now',
      ExpressionAttributeValues: { ':now': iso(deps.clock()) },
    }),
  );
  return sessionUser(candidate);
}

const DUMMY_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==';

export interface UserChanges {
  password?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  is_active?: boolean | undefined;
  is_superuser?: boolean | undefined;
}

/**
 * The one way to end every token and session a user holds (shared/auth/sessions.ts, shared/auth/browser-sessions.ts):
 * raise its token version. Added to the update of a user item by every password change and deactivation: this
 * module's `updateUser` and an invitation's acceptance (shared/invitations/acceptance.ts).
 */
export const endEarlierSessions = {
  expression: 'ADD token_version :endSessions',
  values: { ':endSessions': 1 },
} as const;

/** Changes a user's names, flags or password. */
export async function updateUser(
  deps: AccountsDeps,
  id: number,
  changes: UserChanges,
): Promise<User | undefined> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const set = (field: string, value: unknown) => {
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  };
  if (changes.password !== undefined) {
    const user = await getStoredUser(deps.store, id);
    if (!user) return undefined;
    await enforcePasswordPolicy(changes.password, [
      user.username,
      user.email,
      user.first_name,
      user.last_name,
    ]);
    set('password_hash', await hashPassword(changes.password));
  }
  for (const field of ['first_name', 'last_name', 'is_active', 'is_superuser'] as const) {
    if (changes[field] !== undefined) set(field, changes[field]);
  }
  if (sets.length === 0) return getUser(deps.store, id);
  // A new password or a deactivation ends every token issued before it (shared/auth/sessions.ts).
  const endsSessions = changes.password !== undefined || changes.is_active === false;
  if (endsSessions) Object.assign(values, endEarlierSessions.values);
  try {
    const result = await deps.store.doc.send(
      new UpdateCommand({
        TableName: deps.store.table,
        Key: keys.user(id),
        UpdateExpression: `SET ${sets.join(', ')}${endsSessions ? ` ${endEarlierSessions.expression}` : ''}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes ? publicUser(strip<StoredUser>(result.Attributes)) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** All users, by id (superuser administration; one GSI partition, read page by page). */
export async function listUsers(store: Store): Promise<User[]> {
  const users = await queryAll<StoredUser>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi.allUsers },
  });
  return users.map(publicUser);
}
