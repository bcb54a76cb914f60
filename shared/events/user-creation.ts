import type { User } from '../accounts/model';

/**
 * The user-creation events port: the one user-creation service (shared/accounts/users.ts `createUser`) calls it
 * around the save. PRE_USER_CREATE runs every subscriber and must succeed before anything is saved (a subscriber's
 * veto throws, and no user exists afterwards); POST_USER_CREATE is told after the save and never affects it.
 * Until subscriptions exist, the platform runs with `noUserCreationEvents`.
 */
export interface UserCreationEvents {
  /** PRE_USER_CREATE: resolves when every subscriber accepts the proposed user; throws the veto otherwise. */
  beforeCreate(proposed: User): Promise<void>;
  /** POST_USER_CREATE: fire-and-forget; failures are the adapter's to log. */
  afterCreate(user: User): void;
}

/** No subscribers: nothing to wait for, nothing to tell. */
export const noUserCreationEvents: UserCreationEvents = {
  beforeCreate: async () => {},
  afterCreate: () => {},
};
