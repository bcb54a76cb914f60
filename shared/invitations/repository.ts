import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pad } from '../accounts/keys';
import { isConditionalCheckFailure, queryAll, type Store, strip } from '../store/store';
import { invitationKeys, type StoredInvitation, uuidV4 } from './model';

/** Saves a new invitation under its token, indexed by organization and creation order. */
export async function putInvitation(store: Store, invitation: StoredInvitation): Promise<void> {
  await store.doc.send(
    new PutCommand({
      TableName: store.table,
      Item: {
        ...invitationKeys.invitation(invitation.uuid),
        GSI1PK: invitationKeys.organizationIndex(invitation.organization_slug),
        GSI1SK: pad(invitation.id),
        ...invitation,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** The invitation of a token; undefined for unknown and malformed tokens alike. */
export async function getInvitation(store: Store, token: string): Promise<StoredInvitation | undefined> {
  if (!uuidV4.test(token)) return undefined;
  const result = await store.doc.send(
    new GetCommand({
      TableName: store.table,
      Key: invitationKeys.invitation(token.toLowerCase()),
      ConsistentRead: true,
    }),
  );
  return result.Item ? strip<StoredInvitation>(result.Item) : undefined;
}

/** An organization's invitations, oldest first (bounded by what one organization invites). */
export async function listInvitations(store: Store, org: string): Promise<StoredInvitation[]> {
  return queryAll<StoredInvitation>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': invitationKeys.organizationIndex(org) },
  });
}

/** Removes an organization's invitation; false when the organization has no such invitation. */
export async function deleteInvitation(store: Store, org: string, token: string): Promise<boolean> {
  if (!uuidV4.test(token)) return false;
  try {
    await store.doc.send(
      new DeleteCommand({
        TableName: store.table,
        Key: invitationKeys.invitation(token.toLowerCase()),
        ConditionExpression: 'organization_slug = :org',
        ExpressionAttributeValues: { ':org': org },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

/** Records one delivery attempt (internal metadata). */
export async function recordDelivery(
  store: Store,
  token: string,
  at: string,
  error: string | null,
): Promise<void> {
  await store.doc
    .send(
      new UpdateCommand({
        TableName: store.table,
        Key: invitationKeys.invitation(token),
        UpdateExpression: error
          ? 'SET delivery.last_error = :error'
          : 'SET delivery.last_sent_at = :at, delivery.last_error = :error ADD delivery.sent_count :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: error ? { ':error': error } : { ':at': at, ':error': null, ':one': 1 },
      }),
    )
    .catch((failure) => {
      // Cancelled meanwhile: nothing to record.
      if (!isConditionalCheckFailure(failure)) throw failure;
    });
}
