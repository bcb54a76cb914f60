import { fullFormats } from 'ajv-formats/dist/formats';

/**
 * The run-time helpers the generated route validators call (functions/<group>/validators/): ajv's standalone code
 * names them as `require()`s of ajv's own modules, which `npm run validators` rewrites to this ES module, so that
 * the route modules of a bundle share one copy of them.
 */

export { fullFormats };

/** A string's length in Unicode code points, as JSON Schema counts `minLength`/`maxLength` (ajv's ucs2length). */
export function ucs2length(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    length++;
    const code = text.charCodeAt(index);
    // A high surrogate followed by a low one is a single code point.
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if ((next & 0xfc00) === 0xdc00) index++;
    }
  }
  return length;
}
