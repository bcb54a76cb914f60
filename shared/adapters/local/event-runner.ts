import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { EventsConfig } from '../../config';
import type { EventName, Subscription } from '../../events/model';
import {
  type BlockingOutcome,
  boundedMessage,
  type EventRunner,
  executionError,
  type PublishResult,
  type PublishTask,
  type SubscriberPayload,
  subscriberRefusal,
} from '../../events/runner';
import { resolveModuleTarget } from '../../events/targets';
import type { Logger } from '../../log';

/**
 * The local runner: each subscriber is a module of the functions directory exporting `handler(event, context)`,
 * the Lambda signature, so the same code runs here and in the cloud. Subscribers run concurrently in this process,
 * each bounded by the function timeout.
 */

type Handler = (
  event: unknown,
  context: unknown,
  callback?: (error: unknown, result?: unknown) => void,
) => unknown;

interface Started {
  subscriber: Subscription;
  task: PublishTask;
  run: () => Promise<void>;
}

type Start = Started | { subscriber: Subscription; taskId: string; problem: string };

class Timeout extends Error {}

async function loadHandler(target: string, events: EventsConfig, site: string): Promise<Handler> {
  const file = await resolveModuleTarget(target, events, site);
  const module = (await import(pathToFileURL(file).href)) as {
    handler?: unknown;
    default?: { handler?: unknown };
  };
  const handler = module.handler ?? module.default?.handler;
  if (typeof handler !== 'function') throw new Error(`The module "${target}" exports no handler function.`);
  return handler as Handler;
}

/** Calls a handler the way Lambda does: an async result, or the callback for callback-style handlers. */
function invoke(handler: Handler, payload: SubscriberPayload, context: object): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const callback = (error: unknown, result?: unknown) => (error ? reject(error) : resolve(result));
    try {
      const returned = handler(payload, context, callback);
      if (handler.length < 3 || returned instanceof Promise) Promise.resolve(returned).then(resolve, reject);
    } catch (error) {
      reject(error);
    }
  });
}

function withTimeout<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Timeout()), seconds * 1000);
    timer.unref();
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}

export class LocalEventRunner implements EventRunner {
  constructor(
    private readonly events: EventsConfig,
    private readonly log: Logger,
  ) {}

  /** Loads a subscriber's module; one that cannot be loaded is not started (rule 4). */
  private async start(event: EventName, subscriber: Subscription, data: unknown): Promise<Start> {
    const taskId = randomUUID();
    let handler: Handler;
    try {
      handler = await loadHandler(subscriber.target, this.events, subscriber.site);
    } catch (error) {
      return { subscriber, taskId, problem: boundedMessage((error as Error).message) };
    }
    const invocationId = randomUUID();
    const seconds = this.events.functionTimeoutSeconds;
    const deadline = Date.now() + seconds * 1000;
    const context = {
      functionName: subscriber.function_slug,
      awsRequestId: invocationId,
      callbackWaitsForEmptyEventLoop: false,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    };
    const payload: SubscriberPayload = { event, function_id: subscriber.function_id, task_id: taskId, data };
    return {
      subscriber,
      task: {
        function_id: subscriber.function_id,
        function_name: subscriber.function_name,
        task_id: taskId,
        invocation_id: invocationId,
      },
      run: async () => {
        await withTimeout(invoke(handler, payload, context), seconds);
      },
    };
  }

  private async startAll(event: EventName, subscribers: Subscription[], data: unknown) {
    const starts = await Promise.all(subscribers.map((s) => this.start(event, s, data)));
    const failed = starts.find((s): s is Extract<Start, { problem: string }> => 'problem' in s);
    const started = starts.filter((s): s is Started => 'run' in s);
    const result: PublishResult = failed
      ? executionError(failed.subscriber, failed.taskId, `Function could not be started: ${failed.problem}`)
      : { event, tasks: started.map((s) => s.task), total_subscribers: subscribers.length };
    return { started, failed, result };
  }

  async runBlocking(event: EventName, subscribers: Subscription[], data: unknown): Promise<BlockingOutcome> {
    const { started, failed, result } = await this.startAll(event, subscribers, data);
    if (failed) {
      const message = `Function "${failed.subscriber.function_name}" could not be started.`;
      return { result, refusal: subscriberRefusal(event, failed.subscriber, message, 'execution_error') };
    }
    const outcomes = await Promise.allSettled(started.map((s) => s.run()));
    const index = outcomes.findIndex((outcome) => outcome.status === 'rejected');
    if (index < 0) return { result };
    const { subscriber } = started[index] as Started;
    const reason = (outcomes[index] as PromiseRejectedResult).reason;
    const timedOut = reason instanceof Timeout;
    const message = timedOut
      ? `Function "${subscriber.function_name}" did not finish within ${this.events.functionTimeoutSeconds} s.`
      : boundedMessage((reason as Error)?.message ?? reason);
    return {
      result,
      refusal: subscriberRefusal(
        event,
        subscriber,
        message,
        timedOut ? 'subscriber_timeout' : 'subscriber_refused',
      ),
    };
  }

  async runDetached(event: EventName, subscribers: Subscription[], data: unknown): Promise<PublishResult> {
    const { started, result } = await this.startAll(event, subscribers, data);
    for (const { subscriber, task, run } of started) {
      run().catch((error: unknown) => {
        this.log.error('event_subscriber_failed', {
          event,
          function_id: subscriber.function_id,
          function_name: subscriber.function_name,
          task_id: task.task_id,
          error: error instanceof Timeout ? 'timed out' : boundedMessage((error as Error)?.message ?? error),
        });
      });
    }
    return result;
  }
}
