import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { deletionOperations } from '../../functions/accounts/deletion-operations';
import { LambdaDeletionHandOff, sweepRequest } from '../../shared/adapters/aws/lambda-deletion-hand-off';
import { composeDeps } from '../../shared/compose/compose';
import { loadConfig } from '../../shared/config';
import { budgetOf, cleanUpOne, type Tombstone } from '../../shared/lifecycle/runner';
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

describe('the accounts function without the data plane (outside the VPC)', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  afterAll(() => dynamo.restore());
  beforeEach(() => dynamo.reset());

  const accounts = () =>
    composeDeps(
      loadConfig({
        PLATFORM_RUNTIME: 'aws',
        TABLE_NAME: 'platform',
        JWT_SIGNING_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/1',
        LOG_LEVEL: 'silent',
        DELETION_SWEEPER_FUNCTION: sweeperName,
      }),
      // The accounts handler composes no SQL plane (functions/accounts/handler.ts).
      undefined,
      { log },
    );
  const site = { slug: 'acme', created_at: '2026-01-01T00:00:00.000000Z' };
  const app = { id: 7, slug: 'shop', created_at: '2026-02-01T00:00:00.000000Z' };

  it('answers an app deletion 202 and hands the whole cleanup, SQL first, to the sweeper', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    dynamo.on(TransactWriteCommand).resolves({});
    const deps = accounts();
    expect(deps.hasSql).toBe(false);
    const ctx = {
      deps,
      access: { site },
      app,
      user: { id: 1 },
      route: { operationId: 'delete_app' },
      params: {},
      query: {},
    };
    const answer = await deletionOperations.deleteApp(ctx as never);
    expect(answer).toMatchObject({ status: 202 });
    // The tombstone was written with the app's removal; nothing else of the cleanup ran here.
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
    expect(dynamo.commandCalls(DeleteCommand)).toHaveLength(0);
    // The sweeper was invoked asynchronously, and no step tried a database this function does not have.
    expect(lambda.commandCalls(InvokeCommand)[0]?.args[0].input).toMatchObject({
      FunctionName: sweeperName,
      InvocationType: 'Event',
    });
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it.each([
    [
      'app',
      {
        kind: 'app',
        site: site.slug,
        site_identity: site.created_at,
        app_id: app.id,
        app_slug: app.slug,
        app_identity: app.created_at,
      },
    ],
    [
      'site',
      { kind: 'site', site: site.slug, site_id: 3, site_identity: site.created_at, organization: 'o' },
    ],
  ])('leaves a pending %s deletion owed, untouched and unlogged, for the sweeper', async (_, tomb) => {
    const deps = accounts();
    const budget = budgetOf(deps);
    const finished = await cleanUpOne(deps, { ...tomb, deleted_by: 1, at: 'x' } as Tombstone, budget);
    expect(finished).toBe(false);
    expect(budget.left).toBe(deps.config.deletionStepsPerRequest);
    expect(dynamo.calls()).toHaveLength(0);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
