import { randomBytes } from 'node:crypto';
import { keys as accountKeys } from '../accounts/keys';
import type { App, Site } from '../accounts/model';
import { queryAll, type Store } from '../store/store';
import { secretKeys } from './keys';
import type { HistoryAction, HistoryRecord, StoredSecret } from './model';
import { getItem } from './store-helpers';

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

/**
 * The history of one secret, newest first, from `since` on: the creation of the site, or of the app, that holds it
 * now. A deleted site's or app's history outlives it (the history of secrets deleted before it has no index to be
 * found by), and a site or app created later under the same slug must not inherit it (docs/lifecycle.md).
 */
export async function historyOf(
  store: Store,
  site: string,
  app: string | null,
  key: string,
  since: string,
): Promise<HistoryRecord[]> {
  const records = await queryAll<HistoryRecord>(store, {
    ExpressionAttributeValues: { ':pk': secretKeys.history(site, app, key), ':since': `AT#${since}` },
    KeyConditionExpression: 'PK = :pk AND SK >= :since',
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

/**
 * Where the history of a secret starts: the creation of the site, or of the app, that holds it now (`historyOf`).
 * Undefined when the app does not exist (any more): its secrets have no history to show.
 */
export async function historyStart(
  store: Store,
  site: Site,
  app: string | null,
): Promise<string | undefined> {
  if (app === null) return site.created_at;
  return (await getItem<App>(store, accountKeys.app(site.slug, app)))?.created_at ?? undefined;
}
