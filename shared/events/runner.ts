import { AppError } from '../errors';
import type { EventName, Subscription } from './model';

/**
 * The port that runs subscribers: the local runner (in-process modules) and the cloud runner (Step Functions for
 * PRE, asynchronous Lambda invocations for POST). docs/events.md, "Publishing".
 */

/** One started subscriber (rule 1). */
export interface PublishTask {
  function_id: number;
  function_name: string;
  task_id: string;
  invocation_id: string;
}

/** What a publish gives back (rules 1 and 4); logged as `event_published`. */
export type PublishResult =
  | { event: EventName; tasks: PublishTask[]; total_subscribers: number }
  | {
      status: 'error';
      code: 'EXECUTION_ERROR';
      message: string;
      data: { function_id: number; function_name: string; status: string; task_id: string };
    };

/** The payload every subscriber receives: the event, its task and the (proposed or saved) user. */
export interface SubscriberPayload {
  event: EventName;
  function_id: number;
  task_id: string;
  data: unknown;
}

/** A PRE run: the publish result and, when a subscriber failed, timed out or could not start, the caller's error. */
export interface BlockingOutcome {
  result: PublishResult;
  refusal?: AppError;
}

export interface EventRunner {
  /** Runs every subscriber concurrently and waits for all of them (PRE_USER_CREATE). */
  runBlocking(event: EventName, subscribers: Subscription[], data: unknown): Promise<BlockingOutcome>;
  /** Starts every subscriber and returns without waiting for them to finish (POST_USER_CREATE). */
  runDetached(event: EventName, subscribers: Subscription[], data: unknown): Promise<PublishResult>;
}

/** A subscriber's message, bounded: it is shown to the caller and logged. */
export function boundedMessage(message: unknown): string {
  const text = typeof message === 'string' && message.trim() !== '' ? message.trim() : 'No reason given.';
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

/**
 * The caller's error when PRE_USER_CREATE does not pass: 422 (the spec's "business logic error"), the subscriber's
 * message as the text, and which function refused.
 */
export function subscriberRefusal(
  event: EventName,
  subscriber: Pick<Subscription, 'function_id' | 'function_name'>,
  message: string,
  code = 'subscriber_refused',
): AppError {
  return new AppError(422, {
    code,
    message,
    title: 'Refused by an event subscriber',
    extra: { event, function_id: subscriber.function_id, function_name: subscriber.function_name },
  });
}

/** The rule-4 result of a subscriber that could not be started. */
export function executionError(
  subscriber: Pick<Subscription, 'function_id' | 'function_name'>,
  taskId: string,
  message: string,
): PublishResult {
  return {
    status: 'error',
    code: 'EXECUTION_ERROR',
    message,
    data: {
      function_id: subscriber.function_id,
      function_name: subscriber.function_name,
      status: 'not_started',
      task_id: taskId,
    },
  };
}
