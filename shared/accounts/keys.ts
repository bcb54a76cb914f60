/**
 * DynamoDB keys of the accounts domain, in one place (docs/data-model.md lists the access pattern each serves).
 */
export const pad = (id: number): string => String(id).padStart(12, '0');

export const keys = {
  user: (id: number) => ({ PK: `USER#${id}`, SK: 'PROFILE' }),
  usernameSentinel: (username: string) => ({ PK: `USERNAME#${username}`, SK: 'UNIQUE' }),
  emailSentinel: (email: string) => ({ PK: `EMAIL#${email}`, SK: 'UNIQUE' }),
  organization: (slug: string) => ({ PK: `ORG#${slug}`, SK: 'PROFILE' }),
  organizationId: (id: number) => ({ PK: `ORGID#${id}`, SK: 'UNIQUE' }),
  member: (org: string, userId: number) => ({ PK: `ORG#${org}`, SK: `MEMBER#${pad(userId)}` }),
  site: (slug: string) => ({ PK: `SITE#${slug}`, SK: 'PROFILE' }),
  sitePermission: (site: string, userId: number) => ({ PK: `SITE#${site}`, SK: `PERM#${pad(userId)}` }),
  app: (site: string, slug: string) => ({ PK: `SITE#${site}`, SK: `APP#${slug}` }),
  appId: (id: number) => ({ PK: `APPID#${id}`, SK: 'UNIQUE' }),
  /** How many organizations a user owns (shared/accounts/quotas.ts). */
  ownedOrganizations: (userId: number) => ({ PK: `USER#${userId}`, SK: 'QUOTA#ORGS' }),
  /** How many sites an organization has (shared/accounts/quotas.ts). */
  organizationSites: (org: string) => ({ PK: `ORG#${org}`, SK: 'QUOTA#SITES' }),
} as const;

/** GSI1 partitions. */
export const gsi = {
  allUsers: 'USERS',
  allOrganizations: 'ORGS',
  userMemberships: (userId: number) => `USER#${userId}#ORGS`,
  userSitePermissions: (userId: number) => `USER#${userId}#SITES`,
  organizationSites: (org: string) => `ORG#${org}#SITES`,
} as const;
