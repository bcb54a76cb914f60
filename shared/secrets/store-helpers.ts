import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Keys } from '../keys/keys';
import type { Logger } from '../log';
import { queryAll, type Store } from '../store/store';
import { onConditionFailure } from '../store/writes';
import { secretKeys } from './keys';
import type { StoredSecret } from './model';
import type { ValueCache } from './value-cache';

/** What the secret store's services need (a slice of Deps). */
export interface SecretsDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly keys: Keys;
  readonly secretCache: ValueCache;
  readonly log: Logger;
}

/** One item by key with a consistent read (writes must be seen at once), storage attributes stripped. */
export async function getItem<T>(store: Store, key: { PK: string; SK: string }): Promise<T | null> {
  const result = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: key, ConsistentRead: true }),
  );
  if (!result.Item) return null;
  const { PK: _pk, SK: _sk, ...rest } = result.Item;
  return rest as T;
}

/** Every secret of a site, both levels (one partition, bounded by docs/secrets.md "Limits"). */
export function allSecrets(store: Store, site: string): Promise<StoredSecret[]> {
  return queryAll<StoredSecret>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': secretKeys.secrets(site), ':prefix': secretKeys.secretPrefix },
    ConsistentRead: true,
  });
}

/**
 * Rewrites a few descriptive attributes of every secret `selects` picks (a renamed type or tag, a deleted tag).
 * The value and its revision stay: the secrets are otherwise unchanged.
 */
export async function sweepSecrets(
  store: Store,
  site: string,
  selects: (secret: StoredSecret) => boolean,
  change: (secret: StoredSecret) => Partial<Pick<StoredSecret, 'type_name' | 'tags' | 'tag_slugs'>>,
): Promise<number> {
  const chosen = (await allSecrets(store, site)).filter(selects);
  for (const secret of chosen) {
    const fields = change(secret);
    const names = Object.keys(fields);
    if (names.length === 0) continue;
    await onConditionFailure(
      store.doc.send(
        new UpdateCommand({
          TableName: store.table,
          Key: secretKeys.secret(site, secret.app, secret.key),
          UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
          ExpressionAttributeValues: Object.fromEntries(
            Object.entries(fields).map(([name, value]) => [`:${name}`, value]),
          ),
        }),
      ),
      () => undefined, // Deleted meanwhile: nothing left to sweep.
    );
  }
  return chosen.length;
}
