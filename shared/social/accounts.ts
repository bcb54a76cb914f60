import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import { getSessionUser } from '../accounts/users';
import { ConflictError, NotFoundError } from '../errors';
import { queryAll, type Store } from '../store/store';
import { conditionFailures } from '../store/writes';
import { accountLinkPrefix, socialKeys } from './model';
import { type AttachedLink, attachedBeforeProof } from './proof';

/**
 * The caller's own provider accounts (docs/social-login.md, "Linked provider accounts"): the list, and unlinking
 * one. A user's links are items of the user's partition (at most `maxLinksPerUser`, identities.ts), each beside
 * the link that signs the provider account in; both go together.
 */
export type SocialAccountDeps = {
  readonly store: Store;
};

interface AccountItem extends AttachedLink {
  id: number;
  site: string;
  provider_key: string;
  subject: string;
  email: string;
  created_at: string;
  link: { PK: string; SK: string };
  /** A lasting way in (identities.ts, `linkFacts`): absent on links made before it existed, which do not count. */
  lasting?: boolean;
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

/** The user's links that still count: a link attached before the address was proven is dead (proof.ts). */
async function accountItems(store: Store, userId: number): Promise<AccountItem[]> {
  const [items, user] = await Promise.all([
    queryAll<AccountItem>(store, {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': accountLinkPrefix },
      ConsistentRead: true,
    }),
    getSessionUser(store, userId),
  ]);
  if (!user) return [];
  return items.filter((item) => !attachedBeforeProof(user, item));
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
      'This account would be left without a lasting way to sign in: set a password, or link a provider the platform trusts with this e-mail address, before unlinking it.',
  });

/**
 * Unlinks one of the user's provider accounts (404 for an id that is not theirs). Refused (409) when the account
 * would be left without a lasting way in (docs/social-login.md, "The last way in"): a usable password, or another
 * link through a provider the platform trusts with the account's own address (`lasting`). A link through any other
 * provider does not count: the site whose app made it can be deleted by its owner, and with it the link. The guard
 * is a condition of the same transaction (the password still set, or the other lasting link still there), so two
 * parallel unlinks of the last two links cannot both succeed.
 */
export async function deleteSocialAccount(deps: SocialAccountDeps, userId: number, id: number) {
  const { store } = deps;
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await store.doc.send(
      new GetCommand({ TableName: store.table, Key: socialKeys.account(userId, id), ConsistentRead: true }),
    );
    const item = found.Item as AccountItem | undefined;
    if (!item) throw new NotFoundError();
    const other = (await accountItems(store, userId)).find(
      (entry) => entry.id !== id && entry.lasting === true,
    );
    const guard = other
      ? {
          ConditionCheck: {
            TableName: store.table,
            Key: socialKeys.account(userId, other.id),
            ConditionExpression: 'lasting = :true',
            ExpressionAttributeValues: { ':true': true },
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
