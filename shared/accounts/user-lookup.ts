import { batchGet } from '../store/batch';
import type { Store } from '../store/store';
import { keys } from './keys';
import { publicUser, type StoredUser, type User } from './model';
import { findUserByUsername } from './users';

/** Users looked up in bulk: by the usernames a request names, and by id. */

export interface ResolvedUsers {
  /** Found users, by the username as the request spelled it. */
  found: Map<string, User>;
  /** Usernames that name no user, as the request spelled them. */
  missing: string[];
}

/** Looks usernames up (case-insensitively, as usernames are unique that way), keeping the request's spelling. */
export async function resolveUsers(store: Store, usernames: readonly string[]): Promise<ResolvedUsers> {
  const distinct = [...new Set(usernames)];
  const users = await Promise.all(distinct.map((username) => findUserByUsername(store, username)));
  const found = new Map<string, User>();
  const missing: string[] = [];
  distinct.forEach((username, i) => {
    const user = users[i];
    if (user) found.set(username, user);
    else missing.push(username);
  });
  return { found, missing };
}

/** Distinct users of a resolution, once each even when the request named one in two spellings. */
export function distinctUsers(found: ReadonlyMap<string, User>): User[] {
  return [...new Map([...found.values()].map((user) => [user.id, user])).values()];
}

/** Users by id, in batches; ids that name no user are left out. */
export async function usersById(store: Store, ids: readonly number[]): Promise<Map<number, User>> {
  const stored = await batchGet<StoredUser>(
    store,
    [...new Set(ids)].map((id) => keys.user(id)),
  );
  return new Map(stored.map((user) => [user.id, publicUser(user)]));
}
