import { describe, expect, it } from 'vitest';
import {
  apiKeyHash,
  apiKeyPattern,
  apiKeyPrefix,
  apiKeyRandomBytes,
  newApiKeySecret,
  visiblePrefixLength,
} from '../../shared/api-keys/model';
import {
  apiKeyBucketLimit,
  apiKeyCacheLimit,
  rememberedApiKeys,
  resolveApiKey,
  throttleApiKey,
  throttledApiKeys,
} from '../../shared/api-keys/resolution';
import { TooManyRequestsError } from '../../shared/errors';
import type { Store } from '../../shared/store/store';

/** The form of a key, and the bounds of what a container keeps of keys (docs/security.md, "API keys"). */

describe('an API key', () => {
  it('is at least 256 random bits behind a fixed prefix, kept only as its SHA-256', () => {
    expect(apiKeyRandomBytes * 8).toBeGreaterThanOrEqual(256);
    const { key, hash, prefix } = newApiKeySecret();
    expect(key.startsWith(apiKeyPrefix)).toBe(true);
    expect(key).toMatch(apiKeyPattern);
    expect(Buffer.from(key.slice(apiKeyPrefix.length), 'base64url')).toHaveLength(apiKeyRandomBytes);
    expect(hash).toBe(apiKeyHash(key));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(prefix).toBe(key.slice(0, visiblePrefixLength));
    // What is shown again leaves at least 256 bits secret.
    expect((key.length - visiblePrefixLength) * 6).toBeGreaterThanOrEqual(256);
    expect(newApiKeySecret().key).not.toBe(key);
  });
});

describe('what a container keeps of keys, each filled past its bound', () => {
  it(`hash look-ups: ${apiKeyCacheLimit}`, async () => {
    let reads = 0;
    const store = {
      table: 't',
      doc: {
        send: async () => {
          reads++;
          return {};
        },
      },
    } as unknown as Store;
    const clock = () => new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < apiKeyCacheLimit + 20; i++)
      await expect(resolveApiKey(store, clock, newApiKeySecret().key)).rejects.toMatchObject({ status: 401 });
    expect(reads).toBe(apiKeyCacheLimit + 20);
    expect(rememberedApiKeys()).toBe(apiKeyCacheLimit);
    // A malformed key is refused without a read, and not remembered.
    await expect(resolveApiKey(store, clock, `${apiKeyPrefix}short`)).rejects.toMatchObject({ status: 401 });
    expect(reads).toBe(apiKeyCacheLimit + 20);
  });

  it(`throttle buckets: ${apiKeyBucketLimit}`, () => {
    const clock = () => new Date('2026-01-01T00:00:00Z');
    for (let i = 0; i < apiKeyBucketLimit + 20; i++) throttleApiKey({ id: `key-${i}` }, 5, clock);
    expect(throttledApiKeys()).toBe(apiKeyBucketLimit);
  });
});

describe("a key's throttle", () => {
  it('lets its rate through each second, refuses the next with a 429, and refills with time', () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => new Date(now);
    const key = { id: 'throttled' };
    for (let call = 0; call < 3; call++) throttleApiKey(key, 3, clock);
    expect(() => throttleApiKey(key, 3, clock)).toThrow(TooManyRequestsError);
    // Another key has its own bucket.
    expect(() => throttleApiKey({ id: 'other' }, 3, clock)).not.toThrow();
    now += 334; // a third of a second (and a millisecond): one call more
    expect(() => throttleApiKey(key, 3, clock)).not.toThrow();
    expect(() => throttleApiKey(key, 3, clock)).toThrow(TooManyRequestsError);
  });
});
