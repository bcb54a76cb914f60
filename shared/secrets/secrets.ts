import { randomUUID } from 'node:crypto';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { keys as accountKeys } from '../accounts/keys';
import { iso } from '../clock';
import { open, seal } from '../keys/envelope';
import type { EncryptionContext } from '../keys/keys';
import { onConditionFailure, putNew, type TransactItem, transact } from '../store/writes';
import { secretErrors } from './errors';
import { changesOf, historyPut } from './history';
import { secretKeys } from './keys';
import { nameSlug, type StoredSecret } from './model';
import { secretTypeOf } from './secret-types';
import { getItem, type SecretsDeps } from './store-helpers';
import { resolveTags } from './tags';
import { cacheId } from './value-cache';
import { checkValue, checkValueSize } from './values';

export interface SecretInput {
  secret_type: string;
  key?: string | undefined;
  value: Record<string, unknown>;
  tags?: string[] | undefined;
  app?: string | null | undefined;
}

type TransactItems = TransactItem[];

/** The encryption context of a secret; `~` stands for site level (KMS takes no empty values; no app slug is `~`). */
const contextOf = (secret: Pick<StoredSecret, 'site' | 'app' | 'key'>): EncryptionContext => ({
  site: secret.site,
  app: secret.app ?? '~',
  key: secret.key,
});

/** The plaintext value of a stored secret: public ones as stored, the others from the cache or decrypted. */
export async function plaintextOf(deps: SecretsDeps, secret: StoredSecret): Promise<unknown> {
  if (secret.sensitivity_level === 'public') return secret.value;
  const id = cacheId(secret.site, secret.app, secret.key);
  const cached = deps.secretCache.get(id, secret.revision);
  if (cached) return cached.value;
  const value = await open(
    deps.keys,
    { ciphertext: secret.ciphertext ?? '', encrypted_key: secret.encrypted_key ?? '' },
    contextOf(secret),
  );
  deps.secretCache.set(id, secret.revision, value, secret.sensitivity_level);
  return value;
}

/** A secret at exactly one level, or null. */
export function secretAt(deps: SecretsDeps, site: string, app: string | null, key: string) {
  return getItem<StoredSecret>(deps.store, secretKeys.secret(site, app, key));
}

/** A secret at one level; 404 naming the key and the level otherwise. */
export async function requireSecretAt(
  deps: SecretsDeps,
  site: string,
  app: string | null,
  key: string,
): Promise<StoredSecret> {
  const found = await secretAt(deps, site, app, key);
  if (!found) throw secretErrors.secretNotFound(key, app);
  return found;
}

/** The lookup of a read: without an app the site level; with one, app level first, then site level (one call). */
export async function lookupSecret(
  deps: SecretsDeps,
  site: string,
  key: string,
  app: string | null,
): Promise<StoredSecret> {
  if (app === null) return requireSecretAt(deps, site, null, key);
  const wanted = [secretKeys.secret(site, app, key), secretKeys.secret(site, null, key)];
  const result = await deps.store.doc.send(
    new BatchGetCommand({ RequestItems: { [deps.store.table]: { Keys: wanted, ConsistentRead: true } } }),
  );
  const items = (result.Responses?.[deps.store.table] ?? []) as Array<StoredSecret & { SK: string }>;
  const found =
    items.find((item) => item.SK === wanted[0]?.SK) ?? items.find((item) => item.SK === wanted[1]?.SK);
  // Unprocessed keys (throttling) fall back to reading each level in order.
  if (!found && result.UnprocessedKeys?.[deps.store.table]) {
    return (await secretAt(deps, site, app, key)) ?? requireSecretAt(deps, site, null, key);
  }
  if (!found) throw secretErrors.secretNotFound(key, app);
  const { PK: _pk, SK: _sk, ...secret } = found as StoredSecret & { PK: string; SK: string };
  return secret as StoredSecret;
}

/** 404 when tags were asked for and the secret has none of them. */
export function requireAnyTag(secret: StoredSecret, wanted: readonly string[]): void {
  if (wanted.length === 0) return;
  const slugs = new Set(wanted.map(nameSlug));
  if (!secret.tag_slugs.some((slug) => slugs.has(slug)))
    throw secretErrors.secretLacksTags(secret.key, wanted);
}

/** Builds the stored form of a value: validated against the type, sealed unless public. */
async function storedForm(
  deps: SecretsDeps,
  site: string,
  app: string | null,
  key: string,
  input: SecretInput,
): Promise<Omit<StoredSecret, 'created_by' | 'created_at' | 'modified_at'>> {
  checkValueSize(input.value);
  const type = await secretTypeOf(deps, site, input.secret_type).catch(() => {
    throw secretErrors.field('secret_type', `No secret type with the slug "${input.secret_type}" exists.`);
  });
  await checkValue(type, input.value);
  const tags = await resolveTags(deps, site, input.tags ?? []);
  const base = {
    site,
    app,
    key,
    type_slug: type.slug,
    type_name: type.name,
    sensitivity_level: type.sensitivity_level,
    tags: tags.map((tag) => tag.name),
    tag_slugs: tags.map((tag) => tag.slug),
    revision: randomUUID(),
  };
  if (type.sensitivity_level === 'public') return { ...base, value: input.value };
  return { ...base, ...(await seal(deps.keys, input.value, contextOf({ site, app, key }))) };
}

const countChange = (table: string, site: string, slug: string, by: number) => ({
  Update: {
    TableName: table,
    Key: secretKeys.type(site, slug),
    UpdateExpression: 'ADD secret_count :by',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':by': by },
  },
});

async function write(
  deps: SecretsDeps,
  items: TransactItems,
  onConflict: (failed: number[]) => Error | Promise<Error>,
) {
  await onConditionFailure(transact(deps.store, items), async (failed) => {
    throw await onConflict(failed);
  });
}

/**
 * Why a write conditioned on the revision it read failed: the secret is gone (404), or another write changed it
 * first (409, a lost race: the caller reads again and decides).
 */
async function lostRace(deps: SecretsDeps, site: string, where: { key: string; app: string | null }) {
  const now = await secretAt(deps, site, where.app, where.key);
  return now ? secretErrors.changedMeanwhile(where.key) : secretErrors.secretNotFound(where.key, where.app);
}

/** Creates a secret at site level, or at app level when `app` names an app of the site. */
export async function createSecret(
  deps: SecretsDeps,
  site: string,
  username: string,
  input: SecretInput & { key: string },
): Promise<StoredSecret> {
  const app = input.app ?? null;
  if (app !== null && !(await getItem(deps.store, accountKeys.app(site, app))))
    throw secretErrors.field('app', `No app with the slug "${app}" exists in this site.`);
  const now = iso(deps.clock());
  const secret: StoredSecret = {
    ...(await storedForm(deps, site, app, input.key, input)),
    created_by: username,
    created_at: now,
    modified_at: now,
  };
  const table = deps.store.table;
  await write(
    deps,
    [
      putNew(table, { ...secretKeys.secret(site, app, input.key), ...secret }),
      countChange(table, site, secret.type_slug, 1),
      historyPut(table, secret, '+', username, now, {}),
    ],
    (failed) =>
      failed.includes(0)
        ? secretErrors.field('key', `A secret with the key "${input.key}" already exists at this level.`)
        : secretErrors.field('secret_type', 'The secret type was deleted meanwhile.'),
  );
  deps.secretCache.delete(cacheId(site, app, input.key));
  return secret;
}

/** Replaces a secret's type, value and tags (a new revision: every container's cached value is stale at once). */
export async function updateSecret(
  deps: SecretsDeps,
  site: string,
  username: string,
  where: { key: string; app: string | null },
  input: SecretInput,
): Promise<StoredSecret> {
  const { key, app } = where;
  if (input.key !== undefined && input.key !== key)
    throw secretErrors.field('key', 'The key cannot be changed.');
  const before = await requireSecretAt(deps, site, app, key);
  const now = iso(deps.clock());
  const after: StoredSecret = {
    ...(await storedForm(deps, site, app, key, input)),
    created_by: before.created_by,
    created_at: before.created_at,
    modified_at: now,
  };
  const table = deps.store.table;
  const items: TransactItems = [
    {
      Put: {
        TableName: table,
        Item: { ...secretKeys.secret(site, app, key), ...after },
        ConditionExpression: 'revision = :revision',
        ExpressionAttributeValues: { ':revision': before.revision },
      },
    },
    historyPut(table, after, '~', username, now, changesOf(before, after)),
  ];
  if (before.type_slug !== after.type_slug)
    items.push(countChange(table, site, before.type_slug, -1), countChange(table, site, after.type_slug, 1));
  await write(deps, items, (failed) =>
    failed.includes(0)
      ? lostRace(deps, site, where)
      : secretErrors.field('secret_type', 'The secret type was deleted meanwhile.'),
  );
  deps.secretCache.delete(cacheId(site, app, key));
  return after;
}

/** Deletes a secret; its history stays (with the `-` record). */
export async function deleteSecret(
  deps: SecretsDeps,
  site: string,
  username: string,
  where: { key: string; app: string | null },
): Promise<StoredSecret> {
  const { key, app } = where;
  const secret = await requireSecretAt(deps, site, app, key);
  const table = deps.store.table;
  const now = iso(deps.clock());
  await write(
    deps,
    [
      {
        Delete: {
          TableName: table,
          Key: secretKeys.secret(site, app, key),
          ConditionExpression: 'revision = :revision',
          ExpressionAttributeValues: { ':revision': secret.revision },
        },
      },
      countChange(table, site, secret.type_slug, -1),
      historyPut(table, secret, '-', username, now, {}),
    ],
    () => lostRace(deps, site, where),
  );
  deps.secretCache.delete(cacheId(site, app, key));
  return secret;
}
