import { describe, expect, it } from 'vitest';
import { setBounded } from '../../shared/bounded';
import { cachedExplorerAssets, explorerAsset, explorerAssets } from '../../shared/meta/explorer';
import { cacheId, ValueCache, valueCacheLimit } from '../../shared/secrets/value-cache';
import { providerCacheLimit, providerCaches, remember } from '../../shared/social/endpoints';
import { AccessCache, accessCacheLimit } from '../../shared/tenancy/access-cache';
import type { LoadedRequest, RequestTarget } from '../../shared/tenancy/principal';
import {
  rememberedSiteOrganizations,
  rememberSiteOrganization,
  siteMappingLimit,
} from '../../shared/tenancy/principal';

/** Every per-container cache holds at most its bound, whatever the requests bring (docs/security.md, "Caches"). */

const clock = () => new Date('2026-01-01T00:00:00Z');

describe('setBounded', () => {
  it('keeps at most the bound, the oldest out first, a key put again moving to the newest place', () => {
    const map = new Map<string, number>();
    for (const key of ['a', 'b', 'c']) setBounded(map, key, 1, 3);
    setBounded(map, 'a', 2, 3);
    setBounded(map, 'd', 1, 3);
    expect([...map.keys()]).toEqual(['c', 'a', 'd']);
    expect(map.get('a')).toBe(2);
  });
});

describe('the caches, each filled past its bound', () => {
  it(`site → organization mapping: ${siteMappingLimit} sites`, () => {
    for (let i = 0; i < siteMappingLimit + 50; i++)
      rememberSiteOrganization({ slug: `site-${i}`, organization_slug: `org-${i}` });
    expect(rememberedSiteOrganizations()).toBe(siteMappingLimit);
  });

  it(`access cache: ${accessCacheLimit} entries by default; the oldest out first`, async () => {
    const loaded = {} as LoadedRequest;
    const target = (userId: number): RequestTarget =>
      ({ userId, site: 's', organization: null, app: null }) as RequestTarget;
    const full = new AccessCache(60, clock);
    for (let i = 0; i < accessCacheLimit + 50; i++) await full.get(target(i), async () => loaded);
    expect(full.size).toBe(accessCacheLimit);
    const small = new AccessCache(60, clock, 2);
    let loads = 0;
    const load = async () => {
      loads++;
      return loaded;
    };
    for (const user of [1, 2, 3]) await small.get(target(user), load);
    expect(small.size).toBe(2);
    await small.get(target(3), load);
    expect(loads).toBe(3);
    await small.get(target(1), load);
    expect(loads).toBe(4);
  });

  it(`decrypted secret values: ${valueCacheLimit} per container`, () => {
    const cache = new ValueCache(clock);
    for (let i = 0; i < valueCacheLimit + 50; i++)
      cache.set(cacheId('site', null, `key-${i}`), 'r1', i, 'private');
    expect(cache.size).toBe(valueCacheLimit);
    expect(cache.get(cacheId('site', null, 'key-0'), 'r1')).toBeUndefined();
    expect(cache.get(cacheId('site', null, `key-${valueCacheLimit + 49}`), 'r1')).toEqual({
      value: valueCacheLimit + 49,
    });
  });

  it(`social discovery documents and key sets: ${providerCacheLimit} each`, () => {
    for (let i = 0; i < providerCacheLimit + 50; i++) {
      remember(
        providerCaches.documents,
        `https://idp-${i}.example/.well-known/openid-configuration`,
        {} as never,
      );
      remember(providerCaches.keySets, `https://idp-${i}.example/jwks`, { keys: [] });
    }
    expect(providerCaches.documents.size).toBe(providerCacheLimit);
    expect(providerCaches.keySets.size).toBe(providerCacheLimit);
  });

  it('API explorer files: the whitelisted ones only, any other name refused before the cache', () => {
    for (let i = 0; i < 20; i++) expect(() => explorerAsset(`other-${i}.js`)).toThrow();
    for (const name of Object.keys(explorerAssets)) explorerAsset(name);
    expect(cachedExplorerAssets()).toBe(Object.keys(explorerAssets).length);
  });
});
