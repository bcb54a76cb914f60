/**
 * DynamoDB keys of the secret store (docs/data-model.md, "Secret store"). Every key carries the site, so no read of
 * one tenant reaches another's secrets.
 */

/** `~` marks site level: app slugs never contain it. */
const scopeOf = (app: string | null) => (app === null ? '~' : `APP#${app}`);

const types = (site: string) => `SITE#${site}#SECRET_TYPES`;
const tags = (site: string) => `SITE#${site}#TAGS`;
const secrets = (site: string) => `SITE#${site}#SECRETS`;
const history = (site: string, app: string | null, key: string) =>
  `SITE#${site}#SECRET_HISTORY#${scopeOf(app)}#${key}`;

export const secretKeys = {
  types,
  type: (site: string, slug: string) => ({ PK: types(site), SK: `TYPE#${slug}` }),
  /** Type names are unique case-insensitively; the sentinel names the type that holds the name. */
  typeName: (site: string, nameSlug: string) => ({ PK: types(site), SK: `NAME#${nameSlug}` }),
  typePrefix: 'TYPE#',
  tags,
  tag: (site: string, slug: string) => ({ PK: tags(site), SK: `TAG#${slug}` }),
  tagName: (site: string, nameSlug: string) => ({ PK: tags(site), SK: `NAME#${nameSlug}` }),
  tagPrefix: 'TAG#',
  secrets,
  secret: (site: string, app: string | null, key: string) => ({
    PK: secrets(site),
    SK: `SECRET#${scopeOf(app)}#${key}`,
  }),
  secretPrefix: 'SECRET#',
  history,
  historyEntry: (site: string, app: string | null, key: string, timestamp: string, nonce: string) => ({
    PK: history(site, app, key),
    SK: `AT#${timestamp}#${nonce}`,
  }),
} as const;
