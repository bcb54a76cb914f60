import { setBounded } from '../bounded';
import type { Clock } from '../clock';
import { AuthenticationError, TooManyRequestsError } from '../errors';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { apiKeyHash, apiKeyPattern, isExpired, type StoredApiKey } from './model';
import { apiKeyOfHash, recordUse } from './repository';

/**
 * How a request's API key is found (docs/security.md, "API keys"). A container remembers what the hash read gave
 * (the key, or that there is none) for at most `apiKeyCacheMs`: a key revoked through another container stops
 * working there within that second; through this one (the revoking request forgets it), at once. Expiry is checked
 * on every request against the clock, whatever is remembered.
 */
export const apiKeyCacheMs = 1000;
/** Bound: 10,000 hashes (a few MB at most); past it the oldest goes first. */
export const apiKeyCacheLimit = 10_000;

const remembered = new Map<string, { until: number; key: StoredApiKey | null }>();

export const invalidApiKey = () =>
  new AuthenticationError({
    code: 'invalid_api_key',
    message: 'The API key is not valid: it is unknown, revoked or expired.',
  });

/** The key a bearer credential names, or a 401 for a malformed, unknown, revoked or expired one. */
export async function resolveApiKey(store: Store, clock: Clock, token: string): Promise<StoredApiKey> {
  // A malformed key is never looked up (nor remembered).
  if (!apiKeyPattern.test(token)) throw invalidApiKey();
  const hash = apiKeyHash(token);
  const now = clock();
  let entry = remembered.get(hash);
  if (!entry || entry.until <= now.getTime()) {
    entry = { until: now.getTime() + apiKeyCacheMs, key: (await apiKeyOfHash(store, hash)) ?? null };
    setBounded(remembered, hash, entry, apiKeyCacheLimit);
  }
  if (!entry.key || isExpired(entry.key, now)) throw invalidApiKey();
  return entry.key;
}

/** Forgets a key in this container (its revocation): its next request reads the hash again. */
export function forgetApiKey(hash: string): void {
  remembered.delete(hash);
}

/** How many key hashes this container remembers (the bound's test). */
export function rememberedApiKeys(): number {
  return remembered.size;
}

/**
 * Each key's own throttle, per container: a token bucket of `perSecond` requests a second (as many at once), so one
 * busy key slows neither its site's users nor other keys. The call over it is a 429 with the seconds to wait.
 * Bound: 10,000 keys; past it the oldest bucket goes first (it starts full again).
 */
const buckets = new Map<string, { tokens: number; at: number }>();
export const apiKeyBucketLimit = 10_000;

/** How many keys' buckets this container keeps (the bound's test). */
export function throttledApiKeys(): number {
  return buckets.size;
}

export function throttleApiKey(key: Pick<StoredApiKey, 'id'>, perSecond: number, clock: Clock): void {
  const now = clock().getTime();
  const bucket = buckets.get(key.id) ?? { tokens: perSecond, at: now };
  const tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
  if (tokens < 1) {
    setBounded(buckets, key.id, { tokens, at: now }, apiKeyBucketLimit);
    throw new TooManyRequestsError({ retryAfterSeconds: 1 });
  }
  setBounded(buckets, key.id, { tokens: tokens - 1, at: now }, apiKeyBucketLimit);
}

/**
 * `last_used_at`, written at most once a minute per key (`lastUsedEveryMs`), never a write per request: this
 * container remembers when it last wrote each key, and the write itself is conditioned on the stored time being a
 * minute old, so other containers do not write it again within the minute either.
 */
export const lastUsedEveryMs = 60_000;
const lastWritten = new Map<string, number>();

export async function noteKeyUse(store: Store, clock: Clock, key: StoredApiKey, log: Logger): Promise<void> {
  const now = clock().getTime();
  const written = lastWritten.get(key.id);
  if (written !== undefined && now - written < lastUsedEveryMs) return;
  setBounded(lastWritten, key.id, now, apiKeyBucketLimit);
  try {
    await recordUse(store, key, new Date(now).toISOString(), new Date(now - lastUsedEveryMs).toISOString());
  } catch (error) {
    // A missed "last used" never fails the request; the key itself is never logged, only its id.
    log.warn('api key last use not recorded', {
      api_key_id: key.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
