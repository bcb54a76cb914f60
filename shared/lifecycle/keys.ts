import { pad } from '../accounts/keys';

/**
 * Tombstones of deletions whose cleanup is under way (docs/data-model.md, "Deletions"). All live in one partition,
 * so that a start finds every deletion a crash left with one Query; the sort key begins with the kind and the
 * tenant, so that a tenant's own requests find that tenant's pending deletions only.
 */
export const deletionKeys = {
  partition: 'DELETION',
  app: (site: string, appId: number) => ({ PK: 'DELETION', SK: `APP#${site}#${pad(appId)}` }),
  appsOf: (site: string) => `APP#${site}#`,
  site: (site: string, siteId: number) => ({ PK: 'DELETION', SK: `SITE#${site}#${pad(siteId)}` }),
  sitesNamed: (site: string) => `SITE#${site}#`,
  organization: (org: string, orgId: number) => ({ PK: 'DELETION', SK: `ORG#${org}#${pad(orgId)}` }),
  organizationsNamed: (org: string) => `ORG#${org}#`,
  user: (userId: number) => ({ PK: 'DELETION', SK: `USER#${pad(userId)}` }),
  usersPrefix: 'USER#',
} as const;
