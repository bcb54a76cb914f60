/**
 * A message's text as pieces to show: plain text, and links where the text has an http(s) URL. The text is
 * untrusted (a tenant chose the organization's name in it): the screen shows every piece as React text, never as
 * HTML, and only an address that parses as `http:` or `https:` becomes a link, so no `javascript:` or `data:`
 * address is ever clickable. Punctuation that ends a sentence after a URL is left out of it.
 */
export type Piece = { text: string } | { link: string };

const candidate = /\bhttps?:\/\/[^\s<>"']+/gi;
const trailing = /[.,;:!?)\]}]+$/;

/** The address when it is an http(s) URL; undefined otherwise. */
export function httpUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function pieces(text: string): Piece[] {
  const found: Piece[] = [];
  let from = 0;
  for (const match of text.matchAll(candidate)) {
    const raw = match[0].replace(trailing, '');
    const link = httpUrl(raw);
    if (!link) continue;
    const at = match.index ?? 0;
    if (at > from) found.push({ text: text.slice(from, at) });
    found.push({ link: raw });
    from = at + raw.length;
  }
  if (from < text.length) found.push({ text: text.slice(from) });
  return found;
}
