import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../accounts/keys';
import type { Logger } from '../log';
import { type Mailer, type MailMessage, quotedName } from '../mail/mailer';
import type { Store } from '../store/store';
import { accountLinkPrefix, socialKeys, unverifiedLinkPrefix } from './model';

/**
 * Accounts whose address nobody has proven yet (docs/security.md, "What an account's first proof ends"). A first
 * provider login makes a user with the provider's address even when no one proved it, so someone else may hold the
 * account until the address's owner proves it (by following a link e-mailed to it, or through a provider the
 * platform trusts). Whatever was attached to the account before that first proof belongs to whoever held it then:
 * the proof raises the token version (every session and refresh family ends) and marks the address proven, and from
 * that moment every provider link attached before it is dead. A link records whether the account's address was
 * proven when it was attached (`address_verified`); the rule below is checked wherever a link is used (sign-in,
 * the caller's list, the unlink guard), so it holds from the proof's own commit, and the links are removed after it
 * (`endLinksAttachedBeforeProof`) only to tidy up.
 */
export interface AttachedLink {
  /** Whether the account's address had been proven when the link was attached (absent on older links: not). */
  readonly address_verified?: boolean;
}

/** Whether a link was attached before the account's address was first proven, and so no longer counts. */
export function attachedBeforeProof(user: { email_verified: boolean }, link: AttachedLink): boolean {
  return user.email_verified && link.address_verified !== true;
}

/** A link the proof ended, as the owner is told of it. */
export interface EndedLink {
  provider: string;
  site: string;
  uid: string;
}

interface LinkSide extends AttachedLink {
  SK: string;
  site: string;
  provider_key: string;
  subject: string;
  link: { PK: string; SK: string };
}

interface LegacyMarker {
  SK: string;
  link: { PK: string; SK: string };
  account?: { PK: string; SK: string };
}

/**
 * Removes the user's provider links attached before the address was proven: each user-side item with its link (on
 * condition that the link still points at this user) and its marker, one transaction per link. Also removes the
 * markers that links of the first version of this guard left (`SOCIALUNVERIFIED#`). Call it after the proof has
 * committed; a crash before it leaves dead links that sign nobody in (`attachedBeforeProof`). Answers the links it
 * ended. Bounded: a user has at most `maxLinksPerUser` links, one page of the partition.
 */
export async function endLinksAttachedBeforeProof(store: Store, userId: number): Promise<EndedLink[]> {
  const page = await store.doc.send(
    new QueryCommand({
      TableName: store.table,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.user(userId).PK,
        ':from': accountLinkPrefix,
        ':to': `${unverifiedLinkPrefix}\uffff`,
      },
      ConsistentRead: true,
    }),
  );
  const items = page.Items ?? [];
  const sides = items.filter((item) => String(item.SK).startsWith(accountLinkPrefix)) as LinkSide[];
  const markers = items.filter((item) => String(item.SK).startsWith(unverifiedLinkPrefix)) as LegacyMarker[];
  const ended: EndedLink[] = [];
  const linkGone = (link: { PK: string; SK: string }) => ({
    Delete: {
      TableName: store.table,
      Key: link,
      ConditionExpression: 'attribute_not_exists(PK) OR user_id = :uid',
      ExpressionAttributeValues: { ':uid': userId },
    },
  });
  for (const side of sides.filter((item) => item.address_verified !== true)) {
    const marker = socialKeys.unverifiedLink(userId, side.site, side.provider_key, side.subject);
    await store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: store.table, Key: { PK: keys.user(userId).PK, SK: side.SK } } },
          linkGone(side.link),
          { Delete: { TableName: store.table, Key: marker } },
        ],
      }),
    );
    ended.push({ provider: side.provider_key, site: side.site, uid: side.subject });
  }
  const endedSides = new Set(sides.map((side) => side.SK));
  for (const marker of markers) {
    if (marker.account && endedSides.has(marker.account.SK)) continue;
    await store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: store.table, Key: { PK: keys.user(userId).PK, SK: marker.SK } } },
          linkGone(marker.link),
          ...(marker.account ? [{ Delete: { TableName: store.table, Key: marker.account } }] : []),
        ],
      }),
    );
  }
  return ended;
}

/**
 * The notice to the address's owner of what its first proof ended: the provider links attached before it, and every
 * earlier session. No link and no secret; the provider keys and sites are tenants' words, so they are quoted.
 */
export function attachmentsEndedNotice(to: string, how: string, ended: readonly EndedLink[]): MailMessage {
  const lines = ended.map(
    (link) =>
      `- the ${quotedName(link.provider)} account ${quotedName(link.uid)} of the site ${quotedName(link.site)}`,
  );
  return {
    to,
    subject: 'Sign-in methods were removed from your account',
    text: [
      `Your e-mail address was confirmed ${how}.`,
      '',
      'Until then, this account could have been used by someone else. Everything attached to it before was removed:',
      ...lines,
      '- every session and sign-in token issued before',
      '',
      'If one of these was yours, sign in and link it again from your account.',
    ].join('\n'),
  };
}

/**
 * Tidies up after a proof and tells the owner, when anything was attached (a refused message or a failed tidy-up
 * is logged, and the dead links stay dead): the links it ended.
 */
export async function afterProof(
  deps: { readonly store: Store; readonly mailer: Mailer },
  log: Logger,
  user: { id: number; email: string },
  how: string,
): Promise<EndedLink[]> {
  let ended: EndedLink[] = [];
  try {
    ended = await endLinksAttachedBeforeProof(deps.store, user.id);
    if (ended.length > 0) await deps.mailer.send(attachmentsEndedNotice(user.email, how, ended));
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('links attached before the address was proven not all removed', { user_id: user.id, reason });
  }
  return ended;
}
