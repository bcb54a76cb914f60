import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { Store } from '../store/store';
import { unverifiedLinkPrefix } from './model';

/**
 * Account pre-hijacking guard (docs/social-login.md, Linking): a first provider login whose address the provider
 * did not verify makes a user with that address, and someone else may own the address. Whoever proves it later
 * (an invitation's acceptance: the token went to that mailbox) takes the account over; this ends every provider
 * link made that way, so the provider account that made the user no longer signs in as it. Links the provider
 * verified, and links attached later (always verified), stay. Each link goes with its marker in one transaction;
 * a link already gone or re-pointed is left alone. Answers how many links ended.
 */
export async function endUnverifiedLinks(store: Store, userId: number): Promise<number> {
  // A user has at most one marker per provider account that made it: one page.
  const found = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':prefix': unverifiedLinkPrefix },
      ConsistentRead: true,
    }),
  );
  const markers = (found.Items ?? []) as Array<{
    SK: string;
    link: { PK: string; SK: string };
    /** The user's side of the link (absent on markers written before it existed). */
    account?: { PK: string; SK: string };
  }>;
  for (const marker of markers) {
    await store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: store.table, Key: { PK: keys.user(userId).PK, SK: marker.SK } } },
          {
            Delete: {
              TableName: store.table,
              Key: marker.link,
              ConditionExpression: 'attribute_not_exists(PK) OR user_id = :uid',
              ExpressionAttributeValues: { ':uid': userId },
            },
          },
          ...(marker.account ? [{ Delete: { TableName: store.table, Key: marker.account } }] : []),
        ],
      }),
    );
  }
  return markers.length;
}
