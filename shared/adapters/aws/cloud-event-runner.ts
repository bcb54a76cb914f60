import { randomUUID } from 'node:crypto';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { SFNClient } from '@aws-sdk/client-sfn';
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
import type { Logger } from '../../log';

/**
 * The cloud runner. PRE_USER_CREATE: one synchronous execution of the Express state machine (infra/events.ts),
 * whose Map invokes every subscriber's Lambda concurrently with the payload and a timeout; the caller saves the
 * user only when the execution SUCCEEDED. POST_USER_CREATE: one asynchronous Lambda invocation
 * (`InvocationType: Event`) per subscriber, which returns as soon as Lambda has queued it.
 */

/** One item of the state machine's Map (its input's `subscribers`). */
export interface WorkflowTask {
  function_id: number;
  function_name: string;
  function_arn: string;
  task_id: string;
  payload: SubscriberPayload;
}

/** The state machine's input. */
export interface WorkflowInput {
  event: EventName;
  subscribers: WorkflowTask[];
}

/** What the state machine's Fail state puts in the execution's cause (infra/events.ts). */
interface FailureCause {
  function_id?: number;
  function_name?: string;
  task_id?: string;
  failure?: { Error?: string; Cause?: string };
}

function parse<T>(text: string | undefined): T | undefined {
  try {
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The subscriber's own message: Lambda puts `{errorMessage, errorType}` in the cause of a function error. */
function subscriberMessage(failure: FailureCause['failure']): string {
  const lambda = parse<{ errorMessage?: string }>(failure?.Cause);
  return boundedMessage(lambda?.errorMessage ?? failure?.Cause ?? failure?.Error);
}

/** Errors of the Lambda service itself (no such function, throttled, not allowed): the function never ran. */
const notStarted = (error: string | undefined) =>
  !!error && error.startsWith('Lambda.') && error !== 'Lambda.Unknown';

/**
 * How much longer than the subscriber timeout the creating function waits for the execution's answer: the state
 * machine's own answer (which names the subscriber) normally comes first; this bounds the wait whatever the state
 * machine's settings are (at most 25 + 2 s, below API Gateway's 29 s).
 */
export const clientMarginSeconds = 2;

class WaitExceeded extends Error {}

export class CloudEventRunner implements EventRunner {
  constructor(
    private readonly sfn: () => Promise<SFNClient>,
    private readonly lambda: () => Promise<LambdaClient>,
    private readonly stateMachineArn: string | undefined,
    private readonly timeoutSeconds: number,
    private readonly log: Logger,
    private readonly marginSeconds = clientMarginSeconds,
  ) {}

  /** StartSyncExecution, abandoned (and its request aborted) after the subscriber timeout and the margin. */
  private async startBounded(input: string) {
    const { StartSyncExecutionCommand } = await import('@aws-sdk/client-sfn');
    const client = await this.sfn();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => {
          controller.abort();
          reject(new WaitExceeded());
        },
        (this.timeoutSeconds + this.marginSeconds) * 1000,
      );
    });
    try {
      return await Promise.race([
        client.send(new StartSyncExecutionCommand({ stateMachineArn: this.stateMachineArn, input }), {
          abortSignal: controller.signal,
        }),
        limit,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async runBlocking(event: EventName, subscribers: Subscription[], data: unknown): Promise<BlockingOutcome> {
    if (!this.stateMachineArn) throw new Error('EVENT_STATE_MACHINE_ARN is not configured');
    const items: WorkflowTask[] = subscribers.map((s) => {
      const task_id = randomUUID();
      return {
        function_id: s.function_id,
        function_name: s.function_name,
        function_arn: s.target,
        task_id,
        payload: { event, function_id: s.function_id, task_id, data },
      };
    });
    const input: WorkflowInput = { event, subscribers: items };
    let execution: Awaited<ReturnType<CloudEventRunner['startBounded']>>;
    try {
      execution = await this.startBounded(JSON.stringify(input));
    } catch (error) {
      if (!(error instanceof WaitExceeded)) throw error;
      const message = `${event} did not complete within ${this.timeoutSeconds} s.`;
      const result: PublishResult = {
        event,
        tasks: this.tasksOf(items, ''),
        total_subscribers: items.length,
      };
      return {
        result,
        refusal: subscriberRefusal(event, items[0] as WorkflowTask, message, 'subscriber_timeout'),
      };
    }
    const tasks = this.tasksOf(items, execution.executionArn ?? '');
    const result: PublishResult = { event, tasks, total_subscribers: subscribers.length };
    if (execution.status === 'SUCCEEDED') return { result };
    return this.failure(event, items, result, execution);
  }

  private tasksOf(items: WorkflowTask[], invocationId: string): PublishTask[] {
    return items.map((item) => ({
      function_id: item.function_id,
      function_name: item.function_name,
      task_id: item.task_id,
      invocation_id: invocationId,
    }));
  }

  private failure(
    event: EventName,
    items: WorkflowTask[],
    result: PublishResult,
    execution: { status?: string | undefined; error?: string | undefined; cause?: string | undefined },
  ): BlockingOutcome {
    const cause = parse<FailureCause>(execution.cause);
    const item = items.find((i) => i.task_id === cause?.task_id);
    if (!item) {
      // The whole execution failed (its own timeout): no one subscriber to name.
      const message = `${event} did not complete (${execution.status ?? 'unknown'}: ${execution.error ?? 'no error'}).`;
      const first = items[0] as WorkflowTask;
      return { result, refusal: subscriberRefusal(event, first, message, 'subscriber_timeout') };
    }
    const error = cause?.failure?.Error;
    if (notStarted(error)) {
      const message = `Function "${item.function_name}" could not be started.`;
      return {
        result: executionError(item, item.task_id, `Function could not be started: ${error}`),
        refusal: subscriberRefusal(event, item, message, 'execution_error'),
      };
    }
    if (error === 'States.Timeout') {
      const message = `Function "${item.function_name}" did not finish within ${this.timeoutSeconds} s.`;
      return { result, refusal: subscriberRefusal(event, item, message, 'subscriber_timeout') };
    }
    return { result, refusal: subscriberRefusal(event, item, subscriberMessage(cause?.failure)) };
  }

  async runDetached(event: EventName, subscribers: Subscription[], data: unknown): Promise<PublishResult> {
    const { InvokeCommand } = await import('@aws-sdk/client-lambda');
    const client = await this.lambda();
    const runs = subscribers.map(async (s) => {
      const task_id = randomUUID();
      const payload: SubscriberPayload = { event, function_id: s.function_id, task_id, data };
      try {
        const response = await client.send(
          new InvokeCommand({
            FunctionName: s.target,
            InvocationType: 'Event',
            Payload: new TextEncoder().encode(JSON.stringify(payload)),
          }),
        );
        const task: PublishTask = {
          function_id: s.function_id,
          function_name: s.function_name,
          task_id,
          invocation_id: response.$metadata?.requestId ?? '',
        };
        return { task };
      } catch (error) {
        this.log.error('event_subscriber_failed', { event, function_id: s.function_id, task_id, error });
        return {
          failed: executionError(s, task_id, `Function could not be started: ${(error as Error).name}`),
        };
      }
    });
    const settled = await Promise.all(runs);
    const failed = settled.find((r) => r.failed)?.failed;
    if (failed) return failed;
    return { event, tasks: settled.flatMap((r) => r.task ?? []), total_subscribers: subscribers.length };
  }
}
