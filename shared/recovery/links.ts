import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Store } from '../store/store';

/**
 * What the links e-mailed to an address share (a password reset, a confirmation of the address): a token of 32
 * random bytes (256 bits), base64url, that only the e-mail carries and the store keeps as its SHA-256, with an
 * expiry; and public requests that answer no sooner than a floor, so that their time does not tell whether the
 * address has an account.
 */
const tokenBytes = 32;
/** The form of a token; anything else is answered like an unknown token without a lookup. */
export const linkTokenPattern = /^[A-Za-z0-9_-]{43}$/;

export const linkTokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export function mintLinkToken(): { token: string; hash: string } {
  const token = randomBytes(tokenBytes).toString('base64url');
  return { token, hash: linkTokenHash(token) };
}

/** A stored token's item, when the token has the right form, exists and has not expired. */
export async function storedLinkToken<T extends { expires_at_epoch: number }>(
  deps: { readonly store: Store; readonly clock: Clock },
  key: (hash: string) => { PK: string; SK: string },
  token: string,
): Promise<T | undefined> {
  if (!linkTokenPattern.test(token)) return undefined;
  const found = await deps.store.doc.send(
    new GetCommand({ TableName: deps.store.table, Key: key(linkTokenHash(token)), ConsistentRead: true }),
  );
  const item = found.Item as T | undefined;
  const now = Math.floor(deps.clock().getTime() / 1000);
  return item && item.expires_at_epoch > now ? item : undefined;
}

/** Waits until `floorMs` have passed since `started` (a `performance.now()`), if they have not. */
export async function answerNoSoonerThan(started: number, floorMs: number): Promise<void> {
  const left = floorMs - (performance.now() - started);
  if (left > 0) await sleep(left);
}
