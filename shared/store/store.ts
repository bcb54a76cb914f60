import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

/** The control-plane store: a DynamoDB document client and the one table it works on. */
export interface Store {
  readonly doc: DynamoDBDocumentClient;
  readonly table: string;
}

/** Hands out the next integer id of a kind from an atomic counter item (DynamoDB has no sequences). */
export async function nextId(store: Store, kind: string): Promise<number> {
  const result = await store.doc.send(
    new UpdateCommand({
      TableName: store.table,
      Key: { PK: 'COUNTER', SK: kind },
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.value);
}

/** Lower-cased, trimmed key form for case-insensitive uniqueness (e-mail addresses, usernames). */
export function uniqueKey(value: string): string {
  return value.trim().toLowerCase();
}

/** Strips the storage attributes (keys, index keys) from an item. */
export function strip<T>(item: Record<string, unknown>): T {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g1s, ...rest } = item;
  return rest as T;
}

/** Reads every page of a query (for partitions whose size the docs bound). */
export async function queryAll<T>(
  store: Store,
  input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>,
): Promise<T[]> {
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({ ...input, TableName: store.table, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) items.push(strip<T>(item));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
