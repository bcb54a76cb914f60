import { randomBytes } from 'node:crypto';
import { queryAll, type Store } from '../store/store';
import { secretKeys } from './keys';
import type { HistoryAction, HistoryRecord, StoredSecret } from './model';

/** The transaction item that records one change of a secret: who, when, what, never the value. */
export function historyPut(
  table: string,
  secret: StoredSecret,
  action: HistoryAction,
  user: string,
  timestamp: string,
  changes: Record<string, unknown>,
) {
  const record: HistoryRecord = {
    action,
    user,
    timestamp,
    key: secret.key,
    app: secret.app,
    secret_type: secret.type_name,
    tags: secret.tags,
    changes,
  };
  const nonce = randomBytes(4).toString('hex');
  return {
    Put: {
      TableName: table,
      Item: { ...secretKeys.historyEntry(secret.site, secret.app, secret.key, timestamp, nonce), ...record },
    },
  };
}

/** What an update changed, by field; the value is only said to be replaced. */
export function changesOf(before: StoredSecret, after: StoredSecret): Record<string, unknown> {
  const changes: Record<string, unknown> = { value: 'replaced' };
  if (before.type_slug !== after.type_slug)
    changes.secret_type = { from: before.type_name, to: after.type_name };
  if (before.tag_slugs.join('\n') !== after.tag_slugs.join('\n'))
    changes.tags = { from: before.tags, to: after.tags };
  return changes;
}

/** The history of one secret, newest first. */
export async function historyOf(
  store: Store,
  site: string,
  app: string | null,
  key: string,
): Promise<HistoryRecord[]> {
  const records = await queryAll<HistoryRecord>(store, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': secretKeys.history(site, app, key) },
    ScanIndexForward: false,
  });
  return records.map(({ action, user, timestamp, key, app, secret_type, tags, changes }) => ({
    action,
    user,
    timestamp,
    key,
    app,
    secret_type,
    tags,
    changes,
  }));
}
