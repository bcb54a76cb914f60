/**
 * The platform's one slug function and its one rule for names: lower case ASCII words joined by hyphens.
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
