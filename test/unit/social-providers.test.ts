import { describe, expect, it } from 'vitest';
import {
  emailTrusted,
  oidcIdentity,
  providerDef,
  providerNames,
  providers,
  signInHostFixed,
} from '../../shared/social/providers';

describe('the provider registry', () => {
  it('has openid_connect and the common providers, in alphabetical order', () => {
    expect(providerNames).toEqual([
      'discord',
      'facebook',
      'github',
      'gitlab',
      'google',
      'microsoft',
      'openid_connect',
    ]);
  });

  it('names https endpoints only', () => {
    for (const def of Object.values(providers)) {
      const urls = Object.entries(def).filter(([key]) => /Url$|^discovery$/.test(key));
      for (const [, url] of urls) expect(String(url)).toMatch(/^https:\/\//);
    }
  });
});

describe('claim mapping', () => {
  it('takes OpenID Connect claims, and only a literal true as verified', () => {
    const claims = { sub: 'abc', email: 'a@example.com', given_name: 'Ada', family_name: 'Lovelace' };
    expect(oidcIdentity({ ...claims, email_verified: true })).toEqual({
      subject: 'abc',
      email: 'a@example.com',
      emailVerified: true,
      firstName: 'Ada',
      lastName: 'Lovelace',
    });
    expect(oidcIdentity({ ...claims, email_verified: 'true' }).emailVerified).toBe(false);
    expect(oidcIdentity({ sub: 'abc' }).email).toBeUndefined();
  });

  it("takes GitHub's primary address and its verification from the e-mail list", () => {
    const profile = { id: 42, name: 'Ada King Lovelace', email: null };
    const emails = [
      { email: 'other@example.com', primary: false, verified: true },
      { email: 'ada@example.com', primary: true, verified: true },
    ];
    expect(providers.github.identity(profile, emails)).toEqual({
      subject: '42',
      email: 'ada@example.com',
      emailVerified: true,
      firstName: 'Ada',
      lastName: 'King Lovelace',
    });
    const unverified = [{ email: 'ada@example.com', primary: true, verified: false }];
    expect(providers.github.identity(profile, unverified).emailVerified).toBe(false);
    expect(providers.github.identity({ id: 42, email: 'public@example.com' }, []).emailVerified).toBe(false);
  });

  it("takes Discord's verified flag", () => {
    const profile = { id: '99', email: 'd@example.com', verified: true, global_name: 'Dee Dee' };
    expect(providers.discord.identity(profile)).toMatchObject({ subject: '99', emailVerified: true });
    expect(providers.discord.identity({ ...profile, verified: false }).emailVerified).toBe(false);
  });

  it('never takes Microsoft or Facebook addresses as verified', () => {
    const microsoft = { sub: 'm', email: 'm@example.com', email_verified: true };
    expect(providers.microsoft.identity(microsoft).emailVerified).toBe(false);
    expect(providers.facebook.identity({ id: '7', email: 'f@example.com' }).emailVerified).toBe(false);
  });
});

describe('which providers may attach a sign-in to an existing account by its address', () => {
  const verified = { subject: 's', email: 'a@example.com', emailVerified: true, firstName: '', lastName: '' };

  it.each([
    ['google', true],
    ['gitlab', true],
    ['github', true],
    ['discord', true],
    ['microsoft', false],
    ['facebook', false],
    ['openid_connect', false],
  ] as const)('%s: %s', (name, trusted) => {
    expect(emailTrusted(name, verified)).toBe(trusted);
    // Never an address the provider itself does not assert.
    expect(emailTrusted(name, { ...verified, emailVerified: false })).toBe(false);
  });

  it('decides for every provider of the registry', () => {
    for (const name of providerNames) expect(typeof providerDef(name).trustsEmail).toBe('boolean');
  });
});

describe('which providers a sign-in page may follow without a click (auto_redirect)', () => {
  it('only those whose sign-in host the platform fixed, never a site’s own OpenID Connect provider', () => {
    const fixed = Object.fromEntries(providerNames.map((name) => [name, signInHostFixed(name)]));
    expect(fixed).toEqual({
      discord: true,
      facebook: true,
      github: true,
      gitlab: true,
      google: true,
      microsoft: true,
      openid_connect: false,
    });
    expect(signInHostFixed('corp')).toBe(false);
  });
});
