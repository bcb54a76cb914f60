import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pad } from '../accounts/keys';
import { queryAll, type Store, strip } from '../store/store';
import { createUnique, onConditionFailure, putNew, rethrow, transact } from '../store/writes';
import { invitationKeys, type StoredInvitation, uuidV4 } from './model';
import { tokenHash, tokenPattern } from './tokens';

/** The sentinel item of a token hash: it names the invitation, nothing else. */
function tokenSentinel(invitation: StoredInvitation, hash: string) {
  return { ...invitationKeys.token(hash), invitation_uuid: invitation.uuid };
}

/**
 * Saves a new invitation under its uuid, indexed by organization and creation order, and the sentinel of its token
 * hash, in one transaction.
 */
export async function putInvitation(store: Store, invitation: StoredInvitation): Promise<void> {
  await createUnique(store, [
    {
      item: {
        ...invitationKeys.invitation(invitation.uuid),
        GSI1PK: invitationKeys.organizationIndex(invitation.organization_slug),
        GSI1SK: pad(invitation.id),
        ...invitation,
      },
    },
    { item: tokenSentinel(invitation, invitation.token_hash) },
  ]);
}

/** The invitation of a uuid (the organization's handle); undefined for unknown and malformed ones. */
export async function getInvitation(store: Store, uuid: string): Promise<StoredInvitation | undefined> {
  if (!uuidV4.test(uuid)) return undefined;
  const result = await store.doc.send(
    new GetCommand({
      TableName: store.table,
      Key: invitationKeys.invitation(uuid.toLowerCase()),
      ConsistentRead: true,
    }),
  );
  return result.Item ? strip<StoredInvitation>(result.Item) : undefined;
}

/**
 * The invitation of a public token: the sentinel of its hash, then the invitation, which must still carry that
 * hash. Undefined for unknown, replaced (resent) and malformed tokens alike; a malformed one is not looked up.
 */
export async function invitationOfToken(store: Store, token: string): Promise<StoredInvitation | undefined> {
  if (!tokenPattern.test(token)) return undefined;
  const hash = tokenHash(token);
  const sentinel = await store.doc.send(
    new GetCommand({ TableName: store.table, Key: invitationKeys.token(hash), ConsistentRead: true }),
  );
  const uuid = sentinel.Item?.invitation_uuid;
  if (typeof uuid !== 'string') return undefined;
  const invitation = await getInvitation(store, uuid);
  return invitation?.token_hash === hash ? invitation : undefined;
}

/**
 * Gives a pending invitation a new token and expiry (resend): the invitation's hash changes on condition that it
 * is still pending with the hash read, the new sentinel is written and the old one deleted, in one transaction.
 * False when the invitation was accepted, cancelled or resent meanwhile.
 */
export async function replaceToken(
  store: Store,
  invitation: StoredInvitation,
  hash: string,
  expiresAt: string,
): Promise<boolean> {
  const table = store.table;
  // An invitation stored before tokens were separate from uuids has no hash yet: it gets its first one.
  const old = invitation.token_hash as string | undefined;
  return onConditionFailure(
    transact(store, [
      {
        Update: {
          TableName: table,
          Key: invitationKeys.invitation(invitation.uuid),
          UpdateExpression: 'SET token_hash = :hash, expires_at = :expires',
          ConditionExpression: `attribute_exists(PK) AND used = :false AND ${old ? 'token_hash = :old' : 'attribute_not_exists(token_hash)'}`,
          ExpressionAttributeValues: {
            ':hash': hash,
            ':expires': expiresAt,
            ':false': false,
            ...(old ? { ':old': old } : {}),
          },
        },
      },
      putNew(table, tokenSentinel(invitation, hash)),
      ...(old ? [{ Delete: { TableName: table, Key: invitationKeys.token(old) } }] : []),
    ]).then(() => true),
    (failed, error) => (failed.includes(0) ? false : rethrow(error)),
  );
}

/** An organization's invitations, oldest first (bounded by what one organization invites). */
export async function listInvitations(store: Store, org: string): Promise<StoredInvitation[]> {
  return queryAll<StoredInvitation>(store, {
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': invitationKeys.organizationIndex(org) },
  });
}

/** Removes an organization's invitation and its token's sentinel; false when the organization has no such one. */
export async function deleteInvitation(store: Store, org: string, uuid: string): Promise<boolean> {
  if (!uuidV4.test(uuid)) return false;
  const removed = await onConditionFailure(
    store.doc.send(
      new DeleteCommand({
        TableName: store.table,
        Key: invitationKeys.invitation(uuid.toLowerCase()),
        ConditionExpression: 'organization_slug = :org',
        ExpressionAttributeValues: { ':org': org },
        ReturnValues: 'ALL_OLD',
      }),
    ),
    () => undefined,
  );
  if (!removed) return false;
  // A resend replaces the hash only while the invitation exists, so this is the last token it had.
  const hash = removed.Attributes?.token_hash;
  if (typeof hash === 'string')
    await store.doc.send(new DeleteCommand({ TableName: store.table, Key: invitationKeys.token(hash) }));
  return true;
}

/** Records one delivery attempt (internal metadata). */
export async function recordDelivery(
  store: Store,
  uuid: string,
  at: string,
  error: string | null,
): Promise<void> {
  await onConditionFailure(
    store.doc.send(
      new UpdateCommand({
        TableName: store.table,
        Key: invitationKeys.invitation(uuid),
        UpdateExpression: error
          ? 'SET delivery.last_error = :error'
          : 'SET delivery.last_sent_at = :at, delivery.last_error = :error ADD delivery.sent_count :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: error ? { ':error': error } : { ':at': at, ':error': null, ':one': 1 },
      }),
    ),
    () => undefined, // Cancelled meanwhile: nothing to record.
  );
}
