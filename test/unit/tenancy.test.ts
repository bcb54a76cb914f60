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

  it('throws a 400 when nothing names a site', () => {
    expect(() => siteSlugOf({ host: 'example.com' }, settings)).toThrow(BadRequestError);
  });
});
