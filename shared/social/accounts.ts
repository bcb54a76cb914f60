import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import { ConflictError, NotFoundError } from '../errors';
import { queryAll, type Store } from '../store/store';
import { conditionFailures } from '../store/writes';
import { accountLinkPrefix, socialKeys } from './model';

/**
 * The caller's own provider accounts (docs/social-login.md, "Linked provider accounts"): the list, and unlinking
 * one. A user's links are items of the user's partition (at most `maxLinksPerUser`, identities.ts), each beside
 * the link that signs the provider account in; both go together.
 */
export type SocialAccountDeps = {
  readonly store: Store;
};

interface AccountItem {
  id: number;
  site: string;
  provider_key: string;
  subject: string;
  email: string;
  created_at: string;
  link: { PK: string; SK: string };
}

/** The representation: which provider account (`uid`), of which provider key and site. */
export function accountView(item: AccountItem) {
  return {
    id: item.id,
    provider: item.provider_key,
    site: item.site,
    uid: item.subject,
    email: item.email,
    created: item.created_at,
  };
}

async function accountItems(store: Store, userId: number): Promise<AccountItem[]> {
  return queryAll<AccountItem>(store, {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': accountLinkPrefix },
    ConsistentRead: true,
  });
}

/** The user's links in the order they were made. */
export async function listSocialAccounts(deps: SocialAccountDeps, userId: number) {
  return (await accountItems(deps.store, userId)).map(accountView);
}

/** The user's link made for this provider account (the answer of an explicit link). */
export async function socialAccountOf(
  deps: SocialAccountDeps,
  userId: number,
  link: { PK: string; SK: string },
) {
  const found = (await accountItems(deps.store, userId)).find(
    (item) => item.link.PK === link.PK && item.link.SK === link.SK,
  );
  return found ? accountView(found) : undefined;
}

const noWayLeft = () =>
  new ConflictError({
    code: 'last_sign_in_method',
    message:
      'This is the only way to sign in to this account: set a password or link another provider before unlinking it.',
  });

/**
 * Unlinks one of the user's provider accounts (404 for an id that is not theirs). Refused (409) when the account
 * would be left with no way to sign in: no usable password and no other link. The guard is a condition of the
 * same transaction (the password still set, or the other link still there), so two parallel unlinks of the last
 * two links cannot both succeed.
 */
export async function deleteSocialAccount(deps: SocialAccountDeps, userId: number, id: number) {
  const { store } = deps;
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await store.doc.send(
      new GetCommand({ TableName: store.table, Key: socialKeys.account(userId, id), ConsistentRead: true }),
    );
    const item = found.Item as AccountItem | undefined;
    if (!item) throw new NotFoundError();
    const other = (await accountItems(store, userId)).find((entry) => entry.id !== id);
    const guard = other
      ? {
          ConditionCheck: {
            TableName: store.table,
            Key: socialKeys.account(userId, other.id),
            ConditionExpression: 'attribute_exists(PK)',
          },
        }
      : {
          ConditionCheck: {
            TableName: store.table,
            Key: keys.user(userId),
            ConditionExpression: 'attribute_type(password_hash, :string) AND size(password_hash) > :zero',
            ExpressionAttributeValues: { ':string': 'S', ':zero': 0 },
          },
        };
    try {
      await store.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            guard,
            {
              Delete: {
                TableName: store.table,
                Key: socialKeys.account(userId, id),
                ConditionExpression: 'attribute_exists(PK)',
              },
            },
            {
              Delete: {
                TableName: store.table,
                Key: item.link,
                ConditionExpression: 'attribute_not_exists(PK) OR user_id = :uid',
                ExpressionAttributeValues: { ':uid': userId },
              },
            },
            {
              Delete: {
                TableName: store.table,
                Key: socialKeys.unverifiedLink(userId, item.site, item.provider_key, item.subject),
              },
            },
          ],
        }),
      );
      return;
    } catch (error) {
      const failed = conditionFailures(error);
      if (!failed) throw error;
      if (failed.includes(0) && !other) throw noWayLeft();
      // The other link or this one changed meanwhile: read again.
    }
  }
  throw noWayLeft();
}
