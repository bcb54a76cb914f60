import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../shared/errors';
import { siteSlugOf } from '../../shared/tenancy/tenancy';

const settings = { baseDomain: 'platform.test', defaultSite: undefined };

describe('siteSlugOf', () => {
  it('prefers the X-Site header', () => {
    expect(siteSlugOf({ 'x-site': 'Shop', host: 'other.platform.test' }, settings)).toBe('shop');
  });

  it('reads the site from a site host name', () => {
    expect(siteSlugOf({ host: 'shop.platform.test:443' }, settings)).toBe('shop');
  });

  it('ignores deeper or foreign host names and falls back to the default site', () => {
    expect(siteSlugOf({ host: 'a.b.platform.test' }, { ...settings, defaultSite: 'main' })).toBe('main');
    expect(siteSlugOf({ host: 'example.com' }, { ...settings, defaultSite: 'main' })).toBe('main');
  });

  it('refuses a named site that cannot be a slug with a 400 (too long, or not the slug rule)', () => {
    const refused = (headers: Record<string, string>) => {
      try {
        siteSlugOf(headers, settings);
      } catch (error) {
        return error instanceof BadRequestError ? error.status : 'other error';
      }
      return 'accepted';
    };
    expect(refused({ 'x-site': 'a'.repeat(101) })).toBe(400);
    expect(refused({ 'x-site': 'a'.repeat(2100) })).toBe(400);
    expect(refused({ 'x-site': 'shop#APP#x' })).toBe(400);
    expect(refused({ 'x-site': 'sh--op' })).toBe(400);
    expect(refused({ host: `${'a'.repeat(2100)}.platform.test` })).toBe(400);
    expect(refused({ host: 'a_b.platform.test' })).toBe(400);
    expect(siteSlugOf({ 'x-site': 'a'.repeat(100) }, settings)).toBe('a'.repeat(100));
  });

  it('throws a 400 when nothing names a site', () => {
    expect(() => siteSlugOf({ host: 'example.com' }, settings)).toThrow(BadRequestError);
  });
});
