import { randomUUID } from 'node:crypto';
import { AppError } from '../errors';
import type { Logger } from '../log';
import type { EventName, Subscription } from './model';
import {
  type BlockingOutcome,
  boundedMessage,
  type EventRunner,
  executionError,
  type PublishResult,
  subscriberRefusal,
} from './runner';

/**
 * The target rule again, before every run: a subscription stored before the per-site rule, or whose target no
 * longer satisfies it (a module swapped for a link into another site's folder), is never invoked, so no user's data
 * reaches it (docs/events.md, "Targets"). Such a subscriber is a failing one that could not be started:
 * - PRE_USER_CREATE fails closed: nothing runs (not even the valid subscribers, since the creation is refused
 *   anyway) and the creation is refused (422 `execution_error`), as for any function that cannot be started. A veto
 *   hook that is misconfigured must not let users through unchecked.
 * - POST_USER_CREATE invokes the valid subscribers only; the result is EXECUTION_ERROR, as for any function that
 *   cannot be started, and the user stays saved.
 * Each refused subscriber is logged (`event_subscriber_failed`, `code: target_refused`) with its site, function and
 * task ids, its target and the reason: never the user.
 */

/** Checks a subscriber's target against the rule of its site; throws the 400 of the registration when it breaks it. */
export type TargetCheck = (subscriber: Subscription) => Promise<unknown>;

interface Refused {
  subscriber: Subscription;
  taskId: string;
  reason: string;
}

export function guardedRunner(runner: EventRunner, check: TargetCheck, log: Logger): EventRunner {
  async function sort(event: EventName, subscribers: Subscription[]) {
    const checked = await Promise.all(
      subscribers.map(async (subscriber) => {
        try {
          await check(subscriber);
          return { subscriber };
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const reason = boundedMessage(error.message);
          const refused: Refused = { subscriber, taskId: randomUUID(), reason };
          log.error('event_subscriber_failed', {
            event,
            code: 'target_refused',
            site: subscriber.site,
            app_id: subscriber.app_id,
            function_id: subscriber.function_id,
            function_name: subscriber.function_name,
            task_id: refused.taskId,
            target: subscriber.target,
            error: reason,
          });
          return { refused };
        }
      }),
    );
    return {
      allowed: checked.flatMap((c) => (c.subscriber ? [c.subscriber] : [])),
      refused: checked.flatMap((c) => (c.refused ? [c.refused] : [])),
    };
  }

  const notStarted = (refused: Refused): PublishResult =>
    executionError(refused.subscriber, refused.taskId, `Function could not be started: ${refused.reason}`);

  return {
    async runBlocking(event, subscribers, data): Promise<BlockingOutcome> {
      const { refused } = await sort(event, subscribers);
      const first = refused[0];
      if (!first) return runner.runBlocking(event, subscribers, data);
      const message = `Function "${first.subscriber.function_name}" could not be started.`;
      return {
        result: notStarted(first),
        refusal: subscriberRefusal(event, first.subscriber, message, 'execution_error'),
      };
    },

    async runDetached(event, subscribers, data): Promise<PublishResult> {
      const { allowed, refused } = await sort(event, subscribers);
      const first = refused[0];
      if (!first) return runner.runDetached(event, subscribers, data);
      if (allowed.length > 0) await runner.runDetached(event, allowed, data);
      return notStarted(first);
    },
  };
}
