import type { Config } from '../config';

/**
 * The browser session cookie, `sessionid`: what the browser keeps (a random id, never stored on the server: the
 * server keeps its SHA-256) and the attributes it is sent with. HttpOnly, so page scripts never read it;
 * SameSite=Lax, so other sites' pages do not send it with their requests (top-level links excepted); Secure,
 * except when the local server is called over plain http (a laptop has no certificate).
 */
export const sessionCookieName = 'sessionid';

/** 32 random bytes, base64url without padding: 43 characters. Anything else is refused without a lookup. */
const sessionIdPattern = /^[A-Za-z0-9_-]{43}$/;

/** Whether a value has the shape of a session id (bounds what reaches a DynamoDB key). */
export function isSessionId(value: string): boolean {
  return sessionIdPattern.test(value);
}

/**
 * The `sessionid` values of a `Cookie` header, in order (a parent domain can add a second cookie of the same name;
 * each is tried). Values are not URL-decoded: a session id has no characters that need it.
 */
export function sessionIdsOf(cookieHeader: string | undefined): string[] {
  if (!cookieHeader) return [];
  const ids: string[] = [];
  for (const pair of cookieHeader.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== sessionCookieName) continue;
    ids.push(pair.slice(at + 1).trim());
  }
  return ids;
}

/** Whether the cookie goes out with `Secure`: always, except to the local server over plain http. */
export function secureCookie(config: Pick<Config, 'runtime'>, headers: Record<string, string | undefined>) {
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim();
  return !(config.runtime === 'local' && proto === 'http');
}

function attributes(secure: boolean): string {
  return `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that hands a new session id to the browser for `seconds`. */
export function sessionCookie(id: string, seconds: number, secure: boolean): string {
  return `${sessionCookieName}=${id}; Max-Age=${seconds}; ${attributes(secure)}`;
}

/** The `Set-Cookie` value that has the browser forget its session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${sessionCookieName}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${attributes(secure)}`;
}
