import type { PagesConfig } from '../../shared/config';

/** At most this many characters in a `return_to` (longer ones are refused like a foreign one). */
export const maxReturnToLength = 2000;

function hasControlCharacter(value: string): boolean {
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Where a page may send a person back to after signing in: a path of the pages' own origin, the own origin, or an
 * origin `PAGES_RETURN_ORIGINS` lists for every site or for the page's site. Anything else (another origin, a
 * scheme-relative `//host`, `javascript:`, control characters) is refused: the answer is undefined.
 */
export function allowedReturnTo(
  value: string,
  site: string | null,
  ownOrigin: string,
  config: PagesConfig,
): string | undefined {
  if (value.length > maxReturnToLength || value.includes('\\') || hasControlCharacter(value))
    return undefined;
  if (value.startsWith('/') && !value.startsWith('//')) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password) return undefined;
  if (url.origin === ownOrigin) return url.toString();
  const listed = config.returnOrigins.some(
    (entry) => entry.origin === url.origin && (entry.site === null || entry.site === site),
  );
  return listed ? url.toString() : undefined;
}
