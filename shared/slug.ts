/**
 * The platform's one slug function and its rules for slugs (lower case ASCII words joined by hyphens) and for the
 * names that slugs come from.
 */
export function slugify(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** What a slug may hold: lower-case letters, digits and single hyphens between them, at most 100 characters. */
export const slugPattern = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const slugMaxLength = 100;

/**
 * What a name (of an organization, a site, an app) may hold: any character but the C0 and C1 control characters
 * (U+0000–U+001F, U+007F–U+009F) and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), which would let a name show other text than it holds (in a list, a log line, an e-mail).
 */
export const namePattern = '^[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069]*$';
export const nameMessage = 'Names may not hold control characters or bidirectional overrides.';

/** The message a field gets when it does not match one of the patterns above (a Map: patterns may come from input). */
export const patternMessages: ReadonlyMap<string, string> = new Map([[namePattern, nameMessage]]);
