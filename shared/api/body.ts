import { BadRequestError, type FieldErrors, ValidationError } from '../errors';
import { newFieldErrors, summarize } from '../field-errors';

/**
 * Request bodies: JSON only, read strictly. Everything a client can send that JSON.parse would take but the
 * platform cannot keep faithfully (nesting deep enough to exhaust the stack, numbers beyond a double, lone UTF-16
 * surrogates, U+0000, a bare `null`) is a 400 before any handler code sees the value. docs/security.md.
 */

/** The deepest nesting of arrays and objects a body may have. */
export const maxJsonDepth = 64;

/** `application/json` and `application/<something>+json`, with parameters (charset). */
const jsonMediaType = /^application\/(?:[\w.-]+\+)?json\s*(?:;.*)?$/i;

// Lone surrogates: a high one not followed by a low one, or a low one not preceded by a high one.
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unsupportedMediaType(contentType: string | undefined): BadRequestError {
  return new BadRequestError({
    code: 'unsupported_media_type',
    message: `Unsupported media type "${contentType ?? ''}" in request: send application/json.`,
    fields: { non_field_errors: ['Send the body as application/json.'] },
  });
}

function parseError(message: string, cause?: unknown): BadRequestError {
  const sentence = `${message.charAt(0).toLowerCase()}${message.slice(1)}`;
  return new BadRequestError({
    code: 'parse_error',
    message: `JSON parse error: ${sentence}`,
    cause,
    fields: { non_field_errors: [message] },
  });
}

/**
 * The deepest nesting of `[` and `{` in JSON text, brackets inside strings aside; stops counting past `limit`.
 * A linear scan that runs before JSON.parse, so that no recursive code ever sees a deeper value.
 */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === 0x5d || char === 0x7d) depth--;
  }
  return deepest;
}

function pathOf(path: readonly string[]): string {
  return path.length > 0 ? path.join('.') : 'non_field_errors';
}

function stringProblem(text: string): string | undefined {
  if (loneSurrogate.test(text))
    return 'Contains a lone UTF-16 surrogate (\\ud800-\\udfff): not valid Unicode.';
  if (text.includes('\u0000')) return 'Contains the character U+0000, which cannot be stored.';
  return undefined;
}

/** Values JSON.parse accepts that the platform cannot keep faithfully, keyed by the path of the field. */
export function jsonValueProblems(value: unknown): FieldErrors {
  const errors = newFieldErrors();
  const visit = (item: unknown, path: string[]) => {
    if (typeof item === 'number') {
      if (!Number.isFinite(item))
        errors[pathOf(path)] = ['Number out of range: JSON numbers must fit a 64-bit float.'];
    } else if (typeof item === 'string') {
      const problem = stringProblem(item);
      if (problem) errors[pathOf(path)] = [problem];
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => {
        visit(element, [...path, String(index)]);
      });
    } else if (item !== null && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) {
        const problem = stringProblem(key);
        if (problem)
          errors[pathOf([...path, key.replace(loneSurrogate, '\uFFFD')])] = [`Field name: ${problem}`];
        else visit(element, [...path, key]);
      }
    }
  };
  visit(value, []);
  return errors;
}

/** Parses JSON text under the depth limit and refuses values that would not survive storage. */
export function parseJsonText(text: string): unknown {
  if (jsonDepth(text, maxJsonDepth) > maxJsonDepth)
    throw parseError(`The request body is nested deeper than ${maxJsonDepth} levels.`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw parseError('The request body is not valid JSON.', error);
  }
  const problems = jsonValueProblems(value);
  if (Object.keys(problems).length > 0)
    throw new ValidationError({ fields: problems, message: summarize(problems) });
  return value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A base64 body as text; bytes that are not UTF-8 are refused rather than replaced by U+FFFD. */
function decodeBase64(body: string): string {
  try {
    return utf8.decode(Buffer.from(body, 'base64'));
  } catch (error) {
    throw parseError('The request body is not valid UTF-8.', error);
  }
}

/**
 * The JSON body of a request, or undefined when it has none. Only a JSON media type is read; a body without a
 * Content-Type is refused like any other media type. A bare `null` is refused: it is no object nor list.
 */
export function readJsonBody(
  event: { body?: string | null | undefined; isBase64Encoded?: boolean | undefined },
  headers: Record<string, string | undefined>,
): unknown {
  if (event.body === undefined || event.body === null || event.body === '') return undefined;
  const contentType = headers['content-type'];
  if (contentType === undefined || !jsonMediaType.test(contentType)) throw unsupportedMediaType(contentType);
  const value = parseJsonText(event.isBase64Encoded ? decodeBase64(event.body) : event.body);
  if (value === null)
    throw new ValidationError({
      fields: { non_field_errors: ['The request body may not be null: send a JSON object or array.'] },
      message: 'The request body may not be null: send a JSON object or array.',
    });
  return value;
}
