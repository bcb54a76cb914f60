/**
 * DynamoDB keys of the roles domain (docs/data-model.md, "Roles and memberships"). Every key carries the site, so no
 * read of one tenant can reach another's roles or memberships.
 */
import { pad } from '../accounts/keys';
import { uniqueKey } from '../store/store';

/** The role catalog of a site: one partition holding every role (both kinds) and the site-role name sentinels. */
const catalog = (site: string) => `SITE#${site}#ROLES`;

/** The members of one role: one partition per role. */
const members = (site: string, slug: string) => `SITE#${site}#ROLE#${slug}#USERS`;

export const roleKeys = {
  catalog,
  /** Prefix of role items in the catalog: the SK is the slug, so both kinds share one slug namespace. */
  rolePrefix: 'ROLE#',
  role: (site: string, slug: string) => ({ PK: catalog(site), SK: `ROLE#${slug}` }),
  /** Site role names are unique case-insensitively; the sentinel names the role that holds the name. */
  siteRoleName: (site: string, name: string) => ({ PK: catalog(site), SK: `NAME#${uniqueKey(name)}` }),
  members,
  /** Tombstones of deleted roles whose memberships may still be stored (shared/roles/cleanup.ts). */
  gonePrefix: 'GONE#',
  gone: (site: string, slug: string, id: number) => ({ PK: catalog(site), SK: `GONE#${slug}#${pad(id)}` }),
  membership: (site: string, slug: string, userId: number) => ({
    PK: members(site, slug),
    SK: `USER#${pad(userId)}`,
  }),
} as const;

/** GSI1 partitions: the inverse side of memberships. */
export const roleGsi = {
  /** A user's memberships in one site; GSI1SK is `ROLE#<slug>`. */
  userRoles: (site: string, userId: number) => `SITE#${site}#USER#${userId}#ROLES`,
  userRoleSort: (slug: string) => `ROLE#${slug}`,
} as const;
