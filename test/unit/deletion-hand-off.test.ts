import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LambdaDeletionHandOff, sweepRequest } from '../../shared/adapters/aws/lambda-deletion-hand-off';
import { composeDeps } from '../../shared/compose/compose';
import { loadConfig } from '../../shared/config';
import { captureLog } from '../support/capture-log';

/** The cloud's hand-off of a deletion that answered 202: one asynchronous invocation of the deletion sweeper. */

const lambda = mockClient(LambdaClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => lambda.restore());
const sweeperName = 'Test-DeletionsSweeperFunction-abc123';
const { log, lines } = captureLog();
const handOff = () =>
  new LambdaDeletionHandOff(async () => new LambdaClient({ region: 'eu-west-1' }), sweeperName, log);

beforeEach(() => {
  lambda.reset();
  lines.length = 0;
});

describe('LambdaDeletionHandOff', () => {
  it('invokes the sweeper asynchronously (InvocationType Event) and returns once Lambda queued it', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    await handOff().handOff();
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input).toMatchObject({ FunctionName: sweeperName, InvocationType: 'Event' });
    expect(JSON.parse(new TextDecoder().decode(input?.Payload as Uint8Array))).toEqual(sweepRequest);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('a failed invocation does not fail the deletion: it is logged, and the schedule finishes the work', async () => {
    lambda
      .on(InvokeCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
    await expect(handOff().handOff()).resolves.toBeUndefined();
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringContaining('deletion sweeper not invoked'),
        fields: expect.objectContaining({ error: 'Rate exceeded' }),
      }),
    );
  });

  it('an invocation Lambda did not queue is logged', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 500 });
    await handOff().handOff();
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ status: 500 }) }),
    );
  });
});

describe('the hand-off the cloud composes', () => {
  const cloud = (extra: Record<string, string>) =>
    composeDeps(
      loadConfig({
        PLATFORM_RUNTIME: 'aws',
        TABLE_NAME: 'platform',
        JWT_SIGNING_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/1',
        LOG_LEVEL: 'silent',
        ...extra,
      }),
      undefined,
    );

  it('invokes the function DELETION_SWEEPER_FUNCTION names (set by the stack)', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    await cloud({ DELETION_SWEEPER_FUNCTION: sweeperName }).deletions.handOff();
    expect(lambda.commandCalls(InvokeCommand)[0]?.args[0].input).toMatchObject({
      FunctionName: sweeperName,
      InvocationType: 'Event',
    });
  });

  it('without it, invokes nothing', async () => {
    await cloud({}).deletions.handOff();
    expect(lambda.commandCalls(InvokeCommand)).toHaveLength(0);
  });
});
