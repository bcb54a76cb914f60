/**
 * Cross-origin access, the same locally and in the cloud: the local HTTP server answers preflights and adds these
 * headers itself; in the cloud API Gateway does it from the same lists (infra/stack.ts).
 */
export const corsAllowHeaders = ['authorization', 'content-type', 'x-site'] as const;
export const corsAllowMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** Headers a browser app may read: the request id for support, and the hints of 405 and 429 answers. */
export const corsExposeHeaders = ['x-request-id', 'allow', 'retry-after', 'x-total-count'] as const;
export const corsMaxAgeSeconds = 3600;

/**
 * Any origin by default: with `*` a page on another origin can only make requests without the browser's cookies
 * (bearer tokens), so it gains nothing a script could not do directly. Deployments that want fewer set CORS_ORIGINS;
 * listed origins are also the ones whose apps may use the browser session cookie (credentials allowed, and trusted
 * by the CSRF origin check, shared/auth/csrf.ts).
 */
export const defaultCorsOrigins: readonly string[] = ['*'];

/** Reads a comma-separated origin list (`*`, or origins such as `http://localhost:5173`), or says what is wrong. */
export function parseCorsOrigins(raw: string): string[] | { error: string } {
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (origins.length === 0) return { error: 'names no origin' };
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin)
      return { error: `"${origin}" is not an origin (scheme://host[:port], no path or trailing slash)` };
  }
  return origins;
}

/** Whether browsers may send cookies cross-origin: only to origins named one by one, never with `*`. */
export function corsAllowsCredentials(origins: readonly string[]): boolean {
  return !origins.includes('*');
}

/** The origin to echo for a request's `Origin`, or undefined when it may not read the answer. */
function allowedOrigin(origins: readonly string[], origin: string | undefined): string | undefined {
  if (!origin) return undefined;
  if (origins.includes('*')) return '*';
  return origins.includes(origin) ? origin : undefined;
}

/** With a list of origins the answer depends on the request's Origin: caches must know. */
function varyOn(origins: readonly string[]): Record<string, string> {
  return origins.includes('*') ? {} : { vary: 'origin' };
}

function credentials(origins: readonly string[]): Record<string, string> {
  return corsAllowsCredentials(origins) ? { 'access-control-allow-credentials': 'true' } : {};
}

/** Headers of an ordinary answer to a cross-origin request. */
export function corsResponseHeaders(
  origins: readonly string[],
  origin: string | undefined,
): Record<string, string> {
  const allowed = allowedOrigin(origins, origin);
  const vary = varyOn(origins);
  if (!allowed) return vary;
  return {
    'access-control-allow-origin': allowed,
    'access-control-expose-headers': corsExposeHeaders.join(', '),
    ...credentials(origins),
    ...vary,
  };
}

/** Headers of the answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`). */
export function corsPreflightHeaders(
  origins: readonly string[],
  origin: string | undefined,
): Record<string, string> {
  const allowed = allowedOrigin(origins, origin);
  const vary = varyOn(origins);
  if (!allowed) return vary;
  return {
    'access-control-allow-origin': allowed,
    'access-control-allow-methods': corsAllowMethods.join(', '),
    'access-control-allow-headers': corsAllowHeaders.join(', '),
    'access-control-max-age': String(corsMaxAgeSeconds),
    ...credentials(origins),
    ...vary,
  };
}
