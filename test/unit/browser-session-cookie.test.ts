import { describe, expect, it } from 'vitest';
import { isUnsafeMethod, requireTrustedOrigin } from '../../shared/auth/csrf';
import { isSessionId, secureCookie, sessionIdsOf } from '../../shared/auth/session-cookie';
import { AppError } from '../../shared/errors';

describe('the sessionid cookie', () => {
  it('is read from a Cookie header among other cookies, every occurrence in order', () => {
    expect(sessionIdsOf(undefined)).toEqual([]);
    expect(sessionIdsOf('theme=dark')).toEqual([]);
    expect(sessionIdsOf('theme=dark; sessionid=abc; xsessionid=no; sessionid = def')).toEqual(['abc', 'def']);
    expect(sessionIdsOf('sessionid=')).toEqual(['']);
  });

  it('has the shape of 32 bytes in base64url, nothing else', () => {
    expect(isSessionId('A'.repeat(43))).toBe(true);
    expect(isSessionId('A'.repeat(42))).toBe(false);
    expect(isSessionId('A'.repeat(44))).toBe(false);
    expect(isSessionId(`${'A'.repeat(42)}=`)).toBe(false);
    expect(isSessionId('x'.repeat(1500))).toBe(false);
  });

  it('is Secure except to the local server over plain http', () => {
    expect(secureCookie({ runtime: 'aws' }, { 'x-forwarded-proto': 'https' })).toBe(true);
    expect(secureCookie({ runtime: 'aws' }, { 'x-forwarded-proto': 'http' })).toBe(true);
    expect(secureCookie({ runtime: 'local' }, { 'x-forwarded-proto': 'http' })).toBe(false);
    expect(secureCookie({ runtime: 'local' }, { 'x-forwarded-proto': 'https, http' })).toBe(true);
  });
});

describe('the CSRF origin check', () => {
  const config = { corsOrigins: ['https://app.example.com'] };
  const own = { host: 'api.example.com', 'x-forwarded-proto': 'https' };
  const refusal = (headers: Record<string, string>, absent?: 'allow') => {
    try {
      requireTrustedOrigin(config, headers, absent);
      return undefined;
    } catch (error) {
      return error instanceof AppError ? [error.status, error.code] : error;
    }
  };

  it('checks the methods that can change something', () => {
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'post'].every(isUnsafeMethod)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(isUnsafeMethod)).toBe(false);
  });

  it("trusts the API's own origin and the listed ones, by Origin or else by Referer", () => {
    expect(refusal({ ...own, origin: 'https://api.example.com' })).toBeUndefined();
    expect(refusal({ ...own, origin: 'https://app.example.com' })).toBeUndefined();
    expect(refusal({ ...own, referer: 'https://app.example.com/a/b?c' })).toBeUndefined();
  });

  it('refuses other origins, null, a scheme downgrade, a wildcard and no header at all with 403', () => {
    const forbidden = [403, 'csrf_failed'];
    expect(refusal({ ...own, origin: 'https://evil.example' })).toEqual(forbidden);
    expect(refusal({ ...own, origin: 'null' })).toEqual(forbidden);
    expect(refusal({ ...own, origin: 'http://api.example.com' })).toEqual(forbidden);
    expect(refusal({ ...own, origin: 'https://app.example.com', referer: 'x' })).toBeUndefined();
    expect(refusal({ ...own, origin: 'https://evil.example', referer: 'https://app.example.com/' })).toEqual(
      forbidden,
    );
    expect(refusal({ ...own, referer: 'not a url' })).toEqual(forbidden);
    expect(refusal(own)).toEqual(forbidden);
    expect(refusal(own, 'allow')).toBeUndefined();
    requireTrustedOrigin({ corsOrigins: ['*'] }, { ...own, origin: 'https://api.example.com' });
    expect(() =>
      requireTrustedOrigin({ corsOrigins: ['*'] }, { ...own, origin: 'https://evil.example' }),
    ).toThrow(/CSRF Failed/);
  });
});
