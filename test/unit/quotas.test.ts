import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sendCounted, takeOne } from '../../shared/accounts/quotas';

/**
 * A counted transaction that DynamoDB cancels only because a concurrent one touched the same counter
 * (`TransactionConflict`, which the embedded DynamoDB never raises: it runs transactions one at a time) is sent
 * again; a failed condition (the quota) is not.
 */

const dynamo = mockClient(DynamoDBDocumentClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => dynamo.restore());
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const store = { doc, table: 't' };
const items = [takeOne('t', { key: { PK: 'USER#1', SK: 'QUOTA#ORGS' }, limit: 3, exempt: false })];

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

afterEach(() => dynamo.reset());

describe('sendCounted', () => {
  it('sends again after a conflict with a concurrent transaction', async () => {
    dynamo
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('TransactionConflict'))
      .rejectsOnce(cancelled('None', 'TransactionConflict'))
      .resolves({});
    await sendCounted(store, items);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('leaves a failed condition to the caller, without sending again', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'TransactionConflict'));
    await expect(sendCounted(store, items)).rejects.toThrow(TransactionCanceledException);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('gives up after six conflicts in a row', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('TransactionConflict'));
    await expect(sendCounted(store, items)).rejects.toThrow(TransactionCanceledException);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(6);
  });
});
