import { describe, expect, it } from 'vitest';
import { httpUrl, pieces } from '../../console/src/screens/mail-text';

/** The Mail view's text (console/src/screens/mail-text.ts): only http(s) addresses become links. */
describe("a message's pieces", () => {
  it('makes links of http(s) URLs only, leaving sentence punctuation out of them', () => {
    expect(
      pieces('Open https://example.com/invitations/abc_DEF-1. Or (http://a.test/x), then stop.'),
    ).toEqual([
      { text: 'Open ' },
      { link: 'https://example.com/invitations/abc_DEF-1' },
      { text: '. Or (' },
      { link: 'http://a.test/x' },
      { text: '), then stop.' },
    ]);
    expect(pieces('http://localhost:3000/reset-password#token')).toEqual([
      { link: 'http://localhost:3000/reset-password#token' },
    ]);
  });

  it('keeps every other scheme, markup and a malformed address as text', () => {
    const text =
      'javascript:alert(1) data:text/html,<b>x</b> <a href="javascript:x">y</a> vbscript:x https://';
    const found = pieces(text);
    expect(found.filter((piece) => 'link' in piece)).toEqual([]);
    expect(found.map((piece) => ('text' in piece ? piece.text : piece.link)).join('')).toBe(text);
    expect(pieces('')).toEqual([]);
    // Markup stays text; an http(s) address inside it is a link, without the quote that ends it.
    expect(pieces('<a href="https://x.test">y</a>')).toEqual([
      { text: '<a href="' },
      { link: 'https://x.test' },
      { text: '">y</a>' },
    ]);
  });

  it('tells http(s) URLs from the rest', () => {
    expect(httpUrl('https://example.com/')).toBe('https://example.com/');
    expect(httpUrl('javascript:alert(1)')).toBeUndefined();
    expect(httpUrl('not a url')).toBeUndefined();
  });
});
