import { CreateTableCommand, DescribeTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import type { Store } from './store';
import { indexes, tableKeys, ttlAttribute } from './table';

/** Creates the control-plane table when it does not exist (local runtime and tests; the cloud table is CDK's). */
export async function ensureTable(store: Store): Promise<void> {
  try {
    await store.doc.send(new DescribeTableCommand({ TableName: store.table }));
    return;
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
  const attributes = new Set<string>([tableKeys.partition, tableKeys.sort]);
  for (const index of indexes) {
    attributes.add(index.partition);
    attributes.add(index.sort);
  }
  await store.doc.send(
    new CreateTableCommand({
      TableName: store.table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: tableKeys.partition, KeyType: 'HASH' },
        { AttributeName: tableKeys.sort, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partition, KeyType: 'HASH' },
          { AttributeName: index.sort, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  try {
    await store.doc.send(
      new UpdateTimeToLiveCommand({
        TableName: store.table,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // Some emulators do not implement TTL; expiring items are also filtered by time when read.
  }
}
