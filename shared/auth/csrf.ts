import type { Config } from '../config';
import { PermissionDeniedError } from '../errors';

/**
 * Cross-site request forgery protection of cookie sessions. A browser sends the `sessionid` cookie with whatever
 * request a page makes to the API, so a request that changes something and is authenticated by the cookie must come
 * from a page the API trusts: its `Origin` (else the origin of its `Referer`) must be the API's own origin or one of
 * the origins listed in CORS_ORIGINS (the `*` entry trusts nothing here). Browsers send `Origin` with every
 * cross-origin request and every same-origin POST, PUT, PATCH and DELETE, and a page cannot forge it. A request
 * with neither header is refused. Bearer-token requests are not concerned: no browser adds a token on its own.
 */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a method may change something (and so needs the origin check when a cookie authenticates it). */
export function isUnsafeMethod(method: string): boolean {
  return !safeMethods.has(method.toUpperCase());
}

function firstValue(value: string | undefined): string | undefined {
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** The origin the browser called: the scheme the front door saw and the `Host` header (a page cannot set it). */
function ownOrigin(headers: Record<string, string | undefined>): string | undefined {
  const host = headers.host;
  if (!host) return undefined;
  return `${firstValue(headers['x-forwarded-proto']) === 'http' ? 'http' : 'https'}://${host}`;
}

function originOfReferer(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

function forgeryRefused(reason: string): PermissionDeniedError {
  return new PermissionDeniedError({ message: `CSRF Failed: ${reason}`, code: 'csrf_failed' });
}

/**
 * Throws a 403 unless the request comes from the API's own origin or a configured one. A request that names
 * neither Origin nor Referer is refused too, unless `absent` is `allow`: the browser login allows it, because what
 * it guards against (a page signing its visitor in) comes from a browser, which always sends Origin with a POST.
 */
export function requireTrustedOrigin(
  config: Pick<Config, 'corsOrigins'>,
  headers: Record<string, string | undefined>,
  absent: 'refuse' | 'allow' = 'refuse',
): void {
  const origin = headers.origin ?? originOfReferer(headers.referer);
  if (!origin) {
    if (absent === 'allow') return;
    throw forgeryRefused('Origin checking failed - the request names no Origin or Referer.');
  }
  const trusted = origin === ownOrigin(headers) || (origin !== '*' && config.corsOrigins.includes(origin));
  if (!trusted) {
    // The value is echoed bounded: it came from the client.
    throw forgeryRefused(
      `Origin checking failed - ${origin.slice(0, 200)} does not match any trusted origins.`,
    );
  }
}
