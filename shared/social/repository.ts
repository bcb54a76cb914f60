import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../errors';
import { queryAll, type Store, strip } from '../store/store';
import { createUnique, onConditionFailure, putNew, rethrow, transact } from '../store/writes';
import { providerKeyOf, type StoredSocialApp, socialKeys } from './model';

/**
 * Social apps in DynamoDB (docs/data-model.md): the app in its site's partition, and a sentinel per provider key
 * that keeps one app per `{provider}` of the login paths and finds it in one read.
 */

/** Every social app of a site (a site has a handful: one per provider key). */
export async function listApps(store: Store, site: string): Promise<StoredSocialApp[]> {
  return queryAll<StoredSocialApp>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': socialKeys.app(site, 0).PK, ':prefix': socialKeys.appPrefix },
    ConsistentRead: true,
  });
}

export async function getApp(store: Store, site: string, id: number): Promise<StoredSocialApp | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: socialKeys.app(site, id), ConsistentRead: true }),
  );
  return result.Item ? strip<StoredSocialApp>(result.Item) : undefined;
}

/** The app that `{provider}` names on the site. */
export async function appByProviderKey(
  store: Store,
  site: string,
  providerKey: string,
): Promise<StoredSocialApp | undefined> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: socialKeys.providerKey(site, providerKey) }),
  );
  return result.Item ? getApp(store, site, Number(result.Item.app_id)) : undefined;
}

function takenKey(app: StoredSocialApp): ValidationError {
  const field = app.provider === 'openid_connect' ? 'provider_id' : 'provider';
  return ValidationError.field(
    field,
    `A social app for "${providerKeyOf(app)}" already exists on this site.`,
  );
}

const sentinelOf = (app: StoredSocialApp) => ({
  ...socialKeys.providerKey(app.site, providerKeyOf(app)),
  app_id: app.id,
});

/** Saves a new app and its provider-key sentinel together; a taken provider key is a 400. */
export async function insertApp(store: Store, app: StoredSocialApp): Promise<void> {
  await createUnique(store, [
    { item: sentinelOf(app), taken: () => takenKey(app) },
    { item: { ...socialKeys.app(app.site, app.id), ...app } },
  ]);
}

/** Replaces a stored app; a changed provider key moves its sentinel in the same transaction. */
export async function replaceApp(
  store: Store,
  before: StoredSocialApp,
  after: StoredSocialApp,
): Promise<void> {
  const table = store.table;
  const item = { ...socialKeys.app(after.site, after.id), ...after };
  if (providerKeyOf(before) === providerKeyOf(after)) {
    await store.doc.send(
      new PutCommand({ TableName: table, Item: item, ConditionExpression: 'attribute_exists(PK)' }),
    );
    return;
  }
  await onConditionFailure(
    transact(store, [
      putNew(table, sentinelOf(after)),
      { Delete: { TableName: table, Key: socialKeys.providerKey(before.site, providerKeyOf(before)) } },
      { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_exists(PK)' } },
    ]),
    (failed, error) => rethrow(failed.includes(0) ? takenKey(after) : error),
  );
}

/** Deletes an app and its sentinel; false when it was already gone. */
export async function removeApp(store: Store, app: StoredSocialApp): Promise<boolean> {
  return onConditionFailure(
    transact(store, [
      {
        Delete: {
          TableName: store.table,
          Key: socialKeys.app(app.site, app.id),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      { Delete: { TableName: store.table, Key: socialKeys.providerKey(app.site, providerKeyOf(app)) } },
    ]).then(() => true),
    (failed, error) => (failed.includes(0) ? false : rethrow(error)),
  );
}

/** How many provider accounts of the provider key sign in to users of the site. */
export async function countLinkedUsers(store: Store, site: string, providerKey: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await store.doc.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': socialKeys.identityPartition(site, providerKey) },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/** Removes a login state and answers what it held: each state is used once. */
export async function takeItem(store: Store, key: { PK: string; SK: string }) {
  const result = await store.doc.send(
    new DeleteCommand({ TableName: store.table, Key: key, ReturnValues: 'ALL_OLD' }),
  );
  return result.Attributes;
}
