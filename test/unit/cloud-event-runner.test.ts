import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SFNClient, StartSyncExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CloudEventRunner, type WorkflowInput } from '../../shared/adapters/aws/cloud-event-runner';
import type { Subscription } from '../../shared/events/model';
import { subscribedUserCreationEvents } from '../../shared/events/publisher';
import { captureLog } from '../support/capture-log';

/** The cloud runner: PRE as one synchronous Express execution, POST as asynchronous Lambda invocations. */

const sfn = mockClient(SFNClient);
const lambda = mockClient(LambdaClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => {
  sfn.restore();
  lambda.restore();
});
const stateMachineArn = 'arn:aws:states:eu-west-1:123456789012:stateMachine:UserCreationEvents';
const executionArn = 'arn:aws:states:eu-west-1:123456789012:express:UserCreationEvents:run-1:abc';
const arn = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:tenant-fn-${name}`;

const subscription = (id: number, name: string): Subscription => ({
  id: 100 + id,
  event: 'PRE_USER_CREATE',
  function_id: id,
  function_name: name,
  function_slug: name.toLowerCase(),
  target: arn(name.toLowerCase()),
  app_id: 7,
  app_name: 'Shop',
  app_slug: 'shop',
  site: 'acme',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});
const subscribers = [subscription(1, 'Allow'), subscription(2, 'Veto')];
const proposed = { id: 42, email: 'new@example.com', username: 'new' };

const { log, lines } = captureLog();
const runner = () =>
  new CloudEventRunner(
    async () => new SFNClient({ region: 'eu-west-1' }),
    async () => new LambdaClient({ region: 'eu-west-1' }),
    stateMachineArn,
    10,
    log,
  );

beforeEach(() => {
  sfn.reset();
  lambda.reset();
  lines.length = 0;
});

const sentInput = (): WorkflowInput =>
  JSON.parse(sfn.commandCalls(StartSyncExecutionCommand)[0]?.args[0].input.input ?? '{}');

/** The cause the state machine's Fail state writes for a failed subscriber (infra/events.ts). */
const failedCause = (
  task: { function_id: number; function_name: string; task_id: string },
  error: string,
  cause: string,
) => JSON.stringify({ ...task, failure: { Error: error, Cause: cause } });

describe('PRE_USER_CREATE: StartSyncExecution', () => {
  it('starts the state machine with the proposed user and every subscriber, and passes when it SUCCEEDED', async () => {
    sfn.on(StartSyncExecutionCommand).resolves({ status: 'SUCCEEDED', executionArn });
    const outcome = await runner().runBlocking('PRE_USER_CREATE', subscribers, proposed);
    expect(sfn.commandCalls(StartSyncExecutionCommand)[0]?.args[0].input.stateMachineArn).toBe(
      stateMachineArn,
    );
    const input = sentInput();
    expect(input.event).toBe('PRE_USER_CREATE');
    expect(input.subscribers).toEqual(
      subscribers.map((s) => ({
        function_id: s.function_id,
        function_name: s.function_name,
        function_arn: s.target,
        task_id: expect.any(String),
        payload: {
          event: 'PRE_USER_CREATE',
          function_id: s.function_id,
          task_id: expect.any(String),
          data: proposed,
        },
      })),
    );
    for (const item of input.subscribers) expect(item.payload.task_id).toBe(item.task_id);
    expect(outcome.refusal).toBeUndefined();
    expect(outcome.result).toEqual({
      event: 'PRE_USER_CREATE',
      total_subscribers: 2,
      tasks: input.subscribers.map((item) => ({
        function_id: item.function_id,
        function_name: item.function_name,
        task_id: item.task_id,
        invocation_id: executionArn,
      })),
    });
  });

  it("refuses with the failing subscriber's message (422) when the execution FAILED", async () => {
    sfn.on(StartSyncExecutionCommand).callsFake((input) => {
      const veto = (JSON.parse(input.input) as WorkflowInput).subscribers[1];
      const lambdaError = JSON.stringify({
        errorType: 'Error',
        errorMessage: 'Only @example.org addresses may sign up.',
      });
      return {
        status: 'FAILED',
        executionArn,
        error: 'Error',
        cause: failedCause(veto as never, 'Error', lambdaError),
      };
    });
    const { refusal } = await runner().runBlocking('PRE_USER_CREATE', subscribers, proposed);
    expect(refusal?.status).toBe(422);
    expect(refusal?.message).toBe('Only @example.org addresses may sign up.');
    expect(refusal?.extra).toEqual({ event: 'PRE_USER_CREATE', function_id: 2, function_name: 'Veto' });
  });

  it('refuses when a subscriber timed out (States.Timeout)', async () => {
    sfn.on(StartSyncExecutionCommand).callsFake((input) => {
      const slow = (JSON.parse(input.input) as WorkflowInput).subscribers[0];
      return {
        status: 'FAILED',
        executionArn,
        error: 'States.Timeout',
        cause: failedCause(slow as never, 'States.Timeout', ''),
      };
    });
    const { refusal } = await runner().runBlocking('PRE_USER_CREATE', subscribers, proposed);
    expect(refusal?.message).toBe('Function "Allow" did not finish within 10 s.');
    expect(refusal?.code).toBe('subscriber_timeout');
  });

  it('stops waiting for an execution that does not answer (the subscriber timeout and a short margin), and refuses', async () => {
    let signal: AbortSignal | undefined;
    sfn.on(StartSyncExecutionCommand).callsFake(() => new Promise(() => {}));
    const client = new SFNClient({ region: 'eu-west-1' });
    const send = client.send.bind(client);
    client.send = ((command: never, options?: { abortSignal?: AbortSignal }) => {
      signal = options?.abortSignal;
      return send(command, options as never);
    }) as typeof client.send;
    const hanging = new CloudEventRunner(
      async () => client,
      async () => new LambdaClient({ region: 'eu-west-1' }),
      stateMachineArn,
      0.05,
      log,
      0.05,
    );
    const { result, refusal } = await hanging.runBlocking('PRE_USER_CREATE', subscribers, proposed);
    expect(refusal?.status).toBe(422);
    expect(refusal?.code).toBe('subscriber_timeout');
    expect(refusal?.message).toBe('PRE_USER_CREATE did not complete within 0.05 s.');
    expect(result).toMatchObject({ event: 'PRE_USER_CREATE', total_subscribers: 2 });
    // The request itself is abandoned too, not left open.
    expect(signal?.aborted).toBe(true);
  });

  it('publishes EXECUTION_ERROR when Lambda could not start a subscriber', async () => {
    sfn.on(StartSyncExecutionCommand).callsFake((input) => {
      const gone = (JSON.parse(input.input) as WorkflowInput).subscribers[1];
      const error = 'Lambda.ResourceNotFoundException';
      return {
        status: 'FAILED',
        executionArn,
        error,
        cause: failedCause(gone as never, error, 'Function not found'),
      };
    });
    const outcome = await runner().runBlocking('PRE_USER_CREATE', subscribers, proposed);
    expect(outcome.refusal?.code).toBe('execution_error');
    expect(outcome.result).toEqual({
      status: 'error',
      code: 'EXECUTION_ERROR',
      message: 'Function could not be started: Lambda.ResourceNotFoundException',
      data: {
        function_id: 2,
        function_name: 'Veto',
        status: 'not_started',
        task_id: sentInput().subscribers[1]?.task_id,
      },
    });
  });

  it('refuses when the whole execution timed out', async () => {
    sfn.on(StartSyncExecutionCommand).resolves({ status: 'TIMED_OUT', executionArn });
    const { refusal } = await runner().runBlocking('PRE_USER_CREATE', subscribers, proposed);
    expect(refusal?.status).toBe(422);
    expect(refusal?.message).toContain('TIMED_OUT');
  });
});

describe('POST_USER_CREATE: asynchronous invocations', () => {
  it('invokes every subscriber with InvocationType Event and the saved user', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202, $metadata: { requestId: 'req-1' } });
    const saved = { ...proposed, date_joined: '2026-01-01T00:00:00.000Z' };
    const result = await runner().runDetached('POST_USER_CREATE', subscribers, saved);
    const calls = lambda.commandCalls(InvokeCommand).map((call) => call.args[0].input);
    expect(calls.map((c) => [c.FunctionName, c.InvocationType])).toEqual([
      [arn('allow'), 'Event'],
      [arn('veto'), 'Event'],
    ]);
    const payloads = calls.map((c) => JSON.parse(new TextDecoder().decode(c.Payload as Uint8Array)));
    expect(payloads).toEqual([
      { event: 'POST_USER_CREATE', function_id: 1, task_id: expect.any(String), data: saved },
      { event: 'POST_USER_CREATE', function_id: 2, task_id: expect.any(String), data: saved },
    ]);
    expect(result).toEqual({
      event: 'POST_USER_CREATE',
      total_subscribers: 2,
      tasks: payloads.map((p, i) => ({
        function_id: p.function_id,
        function_name: subscribers[i]?.function_name,
        task_id: p.task_id,
        invocation_id: 'req-1',
      })),
    });
  });

  it('reports EXECUTION_ERROR and logs a subscriber Lambda could not queue', async () => {
    lambda.on(InvokeCommand).callsFake((input) => {
      if (input.FunctionName === arn('veto'))
        throw Object.assign(new Error('gone'), { name: 'ResourceNotFoundException' });
      return { StatusCode: 202 };
    });
    const result = await runner().runDetached('POST_USER_CREATE', subscribers, proposed);
    expect(result).toMatchObject({
      status: 'error',
      code: 'EXECUTION_ERROR',
      data: { function_id: 2, status: 'not_started' },
    });
    expect(
      lines.some((line) => line.message === 'event_subscriber_failed' && line.fields.function_id === 2),
    ).toBe(true);
  });
});

describe('no subscribers', () => {
  it('skips the workflow entirely', async () => {
    const dynamo = mockClient(DynamoDBDocumentClient);
    try {
      dynamo.on(QueryCommand).resolves({ Items: [] });
      const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
      const events = subscribedUserCreationEvents({ doc, table: 't' }, log, runner());
      await events.beforeCreate(proposed as never, { site: 'acme' });
      await events.afterCreate(proposed as never, { site: 'acme' });
      expect(dynamo.commandCalls(QueryCommand)).toHaveLength(2);
      expect(sfn.calls()).toHaveLength(0);
      expect(lambda.calls()).toHaveLength(0);
    } finally {
      // The real client is what the other test files of this worker use.
      dynamo.restore();
    }
  });
});
