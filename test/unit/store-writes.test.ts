import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../shared/errors';
import { ensureTable } from '../../shared/store/ensure-table';
import type { Store } from '../../shared/store/store';
import {
  conditionFailures,
  createItem,
  createUnique,
  isConditionFailure,
  isTransactionConflict,
  onConditionFailure,
  putNew,
  transact,
  updateAtVersion,
} from '../../shared/store/writes';

/** The store helpers against the embedded DynamoDB: a table of this file's own. */
let store: Store;

beforeAll(async () => {
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    endpoint: inject('dynamodbEndpoint'),
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  store = { doc: DynamoDBDocumentClient.from(client), table: `writes-${randomBytes(6).toString('hex')}` };
  await ensureTable(store);
});

let serial = 0;
/** A fresh partition per test: tests do not see each other's items. */
const fresh = () => `T#${++serial}`;

const read = async (key: { PK: string; SK: string }) =>
  (await store.doc.send(new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }))).Item;

const caught = async (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const nameTaken = (name: string) =>
  new ConflictError({ code: 'thing_exists', message: `"${name}" is taken.` });

describe('conditionFailures: one reading of a refused write', () => {
  it('a single conditional put refused is [0]', async () => {
    const pk = fresh();
    await store.doc.send(new PutCommand({ TableName: store.table, Item: { PK: pk, SK: 'A' } }));
    const error = await caught(
      store.doc.send(
        new PutCommand({
          TableName: store.table,
          Item: { PK: pk, SK: 'A' },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      ),
    );
    expect(conditionFailures(error)).toEqual([0]);
    expect(isConditionFailure(error)).toBe(true);
  });

  it('a cancelled transaction answers the indexes of the items whose condition failed', async () => {
    const pk = fresh();
    await store.doc.send(new PutCommand({ TableName: store.table, Item: { PK: pk, SK: 'B' } }));
    const error = await caught(
      transact(store, [
        putNew(store.table, { PK: pk, SK: 'A' }),
        putNew(store.table, { PK: pk, SK: 'B' }),
        putNew(store.table, { PK: pk, SK: 'C' }),
      ]),
    );
    expect(conditionFailures(error)).toEqual([1]);
    expect(await read({ PK: pk, SK: 'A' })).toBeUndefined();
  });

  it('any other error is not a condition failure', async () => {
    const error = await caught(
      store.doc.send(new PutCommand({ TableName: store.table, Item: { PK: fresh() } })), // no sort key
    );
    expect(error).toBeInstanceOf(Error);
    expect(conditionFailures(error)).toBeUndefined();
    expect(isConditionFailure(new Error('boom'))).toBe(false);
    expect(isConditionFailure(undefined)).toBe(false);
  });

  it('a transaction cancelled by another one only is a conflict to retry, not a failed condition', () => {
    const cancelled = (...codes: string[]) =>
      Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: codes.map((Code) => ({ Code })),
      });
    expect(isTransactionConflict(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(isTransactionConflict(cancelled('ConditionalCheckFailed', 'TransactionConflict'))).toBe(false);
    expect(isTransactionConflict(new Error('boom'))).toBe(false);
    expect(conditionFailures(cancelled('None', 'TransactionConflict'))).toEqual([]);
  });
});

describe('createUnique: an item and its sentinels in one transaction', () => {
  it('creates every item, then a taken name is the conflict error the caller gave, and nothing is written', async () => {
    const pk = fresh();
    const create = (slug: string, name: string) =>
      createUnique(store, [
        { item: { PK: pk, SK: `NAME#${name}`, slug }, taken: () => nameTaken(name) },
        { item: { PK: pk, SK: `THING#${slug}`, name } },
      ]);
    await create('one', 'first');
    expect(await read({ PK: pk, SK: 'NAME#first' })).toMatchObject({ slug: 'one' });
    expect(await read({ PK: pk, SK: 'THING#one' })).toMatchObject({ name: 'first' });

    const error = await caught(create('two', 'first'));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'thing_exists', message: '"first" is taken.' });
    expect(await read({ PK: pk, SK: 'THING#two' })).toBeUndefined();
  });

  it('the first listed item whose key is taken names the error', async () => {
    const pk = fresh();
    const slugTaken = () => new ConflictError({ code: 'slug_exists', message: 'slug taken' });
    const create = (slug: string, name: string) =>
      createUnique(store, [
        { item: { PK: pk, SK: `NAME#${name}` }, taken: () => nameTaken(name) },
        { item: { PK: pk, SK: `THING#${slug}` }, taken: slugTaken },
      ]);
    await create('one', 'first');
    expect(await caught(create('one', 'first'))).toMatchObject({ code: 'thing_exists' });
    expect(await caught(create('one', 'second'))).toMatchObject({ code: 'slug_exists' });
    await create('two', 'second');
  });

  it('a key taken with no error of its own goes to `otherwise` with the failed indexes, else rethrows', async () => {
    const pk = fresh();
    await createUnique(store, [{ item: { PK: pk, SK: 'A' } }]);
    let seen: number[] | undefined;
    const mapped = await caught(
      createUnique(store, [{ item: { PK: pk, SK: 'B' } }, { item: { PK: pk, SK: 'A' } }], {
        otherwise: (failed) => {
          seen = failed;
          return new NotFoundError();
        },
      }),
    );
    expect(mapped).toBeInstanceOf(NotFoundError);
    expect(seen).toEqual([1]);
    const raw = await caught(createUnique(store, [{ item: { PK: pk, SK: 'A' } }]));
    expect((raw as Error).name).toBe('TransactionCanceledException');
  });

  it('`also` items are written in the same transaction, and their failed conditions count after the items', async () => {
    const pk = fresh();
    await createUnique(store, [{ item: { PK: pk, SK: 'A' } }], {
      also: [{ Put: { TableName: store.table, Item: { PK: pk, SK: 'INDEX', of: 'A' } } }],
    });
    expect(await read({ PK: pk, SK: 'INDEX' })).toMatchObject({ of: 'A' });
    let seen: number[] | undefined;
    await caught(
      createUnique(store, [{ item: { PK: pk, SK: 'B' } }], {
        also: [
          {
            ConditionCheck: {
              TableName: store.table,
              Key: { PK: pk, SK: 'NONE' },
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
        ],
        otherwise: (failed) => {
          seen = failed;
          return new NotFoundError();
        },
      }),
    );
    expect(seen).toEqual([1]);
    expect(await read({ PK: pk, SK: 'B' })).toBeUndefined();
  });
});

describe('createItem: one conditional put', () => {
  it('creates the item once; again it is the conflict error the caller gave', async () => {
    const pk = fresh();
    await createItem(store, { PK: pk, SK: 'A', n: 1 }, () => nameTaken('A'));
    const error = await caught(createItem(store, { PK: pk, SK: 'A', n: 2 }, () => nameTaken('A')));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'thing_exists' });
    expect(await read({ PK: pk, SK: 'A' })).toMatchObject({ n: 1 });
  });
});

describe('onConditionFailure', () => {
  it('answers the write, or what the mapping returns, and lets other errors through', async () => {
    const pk = fresh();
    const put = () =>
      store.doc
        .send(
          new PutCommand({
            TableName: store.table,
            Item: { PK: pk, SK: 'A' },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        )
        .then(() => 'written');
    expect(await onConditionFailure(put(), () => 'refused')).toBe('written');
    expect(await onConditionFailure(put(), () => 'refused')).toBe('refused');
    const other = new Error('not a condition');
    expect(await caught(onConditionFailure(Promise.reject(other), () => 'refused'))).toBe(other);
  });
});

describe('updateAtVersion: an update on the condition of the version read', () => {
  it('writes at the version read, refuses a stale one (false, or the caller’s 409), and a missing item', async () => {
    const pk = fresh();
    const key = { PK: pk, SK: 'ROLE' };
    await store.doc.send(
      new PutCommand({ TableName: store.table, Item: { ...key, version: 1, label: 'a' } }),
    );
    const relabel = (label: string) => ({
      Key: key,
      UpdateExpression: 'SET label = :label, #version = #version + :one',
      ExpressionAttributeValues: { ':label': label, ':one': 1 },
    });
    expect(await updateAtVersion(store, relabel('b'), 1)).toBe(true);
    expect(await read(key)).toMatchObject({ version: 2, label: 'b' });
    expect(await updateAtVersion(store, relabel('c'), 1)).toBe(false);
    const changed = () => new ConflictError({ code: 'changed', message: 'changed meanwhile' });
    expect(await caught(updateAtVersion(store, relabel('c'), 1, changed))).toMatchObject({ code: 'changed' });
    expect(await read(key)).toMatchObject({ version: 2, label: 'b' });
    expect(await updateAtVersion(store, { ...relabel('d'), Key: { PK: pk, SK: 'GONE' } }, 1)).toBe(false);
  });
});
