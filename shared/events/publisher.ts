import type { User } from '../accounts/model';
import type { CreationScope, UserCreationEvents } from '../accounts/user-creation-events';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import type { EventRunner } from './runner';
import { subscriptionsFor } from './subscriptions';

/**
 * The user-creation events port backed by subscriptions: finds the subscribers of the creation's scope and hands
 * them to the runner. No scope or no subscriber: nothing runs (one query per site, no workflow, no latency).
 */
export function subscribedUserCreationEvents(
  store: Store,
  log: Logger,
  runner: EventRunner,
): UserCreationEvents {
  return {
    async beforeCreate(proposed: User, scope?: CreationScope) {
      if (!scope) return;
      const subscribers = await subscriptionsFor(store, scope, 'PRE_USER_CREATE');
      if (subscribers.length === 0) return;
      const { result, refusal } = await runner.runBlocking('PRE_USER_CREATE', subscribers, proposed);
      log.info('event_published', { event: 'PRE_USER_CREATE', result, passed: !refusal });
      if (refusal) throw refusal;
    },

    async afterCreate(user: User, scope?: CreationScope) {
      if (!scope) return;
      try {
        const subscribers = await subscriptionsFor(store, scope, 'POST_USER_CREATE');
        if (subscribers.length === 0) return;
        const result = await runner.runDetached('POST_USER_CREATE', subscribers, user);
        log.info('event_published', { event: 'POST_USER_CREATE', result });
      } catch (error) {
        // The user is saved: POST_USER_CREATE never changes that, it only reports.
        log.error('event_publish_failed', { event: 'POST_USER_CREATE', user_id: user.id, error });
      }
    },
  };
}
