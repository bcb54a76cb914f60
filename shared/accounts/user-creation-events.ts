import type { User } from './model';

/**
 * Where a user is being created, which decides whose subscriptions fire: every app of the site, or of every site of
 * the organization (docs/events.md, "Which subscriptions fire").
 */
export type CreationScope = { site: string } | { organization: string };

/**
 * The user-creation events port: the one user-creation service (shared/accounts/users.ts `createUser`) calls it
 * around the save. PRE_USER_CREATE runs every subscriber and must succeed before anything is saved (a subscriber's
 * veto throws, and no user exists afterwards); POST_USER_CREATE is told after the save and never affects it. The
 * scope says where the user is being created, which decides whose subscriptions fire (docs/events.md); without one,
 * none do. The platform runs `subscribedUserCreationEvents` (shared/events/publisher.ts); tests may pass their own.
 */
export interface UserCreationEvents {
  /** PRE_USER_CREATE: resolves when every subscriber accepts the proposed user; throws the veto otherwise. */
  beforeCreate(proposed: User, scope?: CreationScope): Promise<void>;
  /**
   * POST_USER_CREATE: starts the subscribers without waiting for them (the promise settles once they are started
   * or queued, never with an error); failures are the adapter's to log.
   */
  afterCreate(user: User, scope?: CreationScope): void | Promise<void>;
}

/** No subscribers: nothing to wait for, nothing to tell. */
export const noUserCreationEvents: UserCreationEvents = {
  beforeCreate: async () => {},
  afterCreate: () => {},
};
