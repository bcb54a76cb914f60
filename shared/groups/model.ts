import { pad } from '../accounts/keys';

/**
 * Organization groups: named sets of an organization's members (invitations name them). A group belongs to one
 * organization and every key carries that organization, so no read of one organization reaches another's groups.
 */
export interface Group {
  id: number;
  slug: string;
  name: string;
  organization_id: number;
  organization_slug: string;
  created_at: string;
  updated_at: string;
}

/** A user's place in a group; keyed by the group's id, so a later group with the same slug never inherits it. */
export interface GroupMembership {
  group_id: number;
  group_slug: string;
  user_id: number;
  added_at: string;
}

/** A group as invitations keep it: its id decides, the slug finds it. */
export interface GroupRef {
  id: number;
  slug: string;
}

/** The most groups one invitation may name (its acceptance is one transaction of at most 100 items). */
export const maxInvitationGroups = 20;

/** DynamoDB keys of groups, all in the organization's partition (docs/data-model.md). */
export const groupKeys = {
  group: (org: string, slug: string) => ({ PK: `ORG#${org}`, SK: `GROUP#${slug}` }),
  /** Case-insensitive name uniqueness within the organization. */
  name: (org: string, lowerName: string) => ({ PK: `ORG#${org}`, SK: `GROUPNAME#${lowerName}` }),
  membership: (org: string, groupId: number, userId: number) => ({
    PK: `ORG#${org}`,
    SK: `GROUPMEMBER#${pad(groupId)}#${pad(userId)}`,
  }),
  /** Tombstone of a deleted group whose memberships may still be stored (shared/groups/cleanup.ts). */
  gone: (org: string, groupId: number) => ({ PK: `ORG#${org}`, SK: `GROUPGONE#${pad(groupId)}` }),
  gonePrefix: 'GROUPGONE#',
  groupPrefix: 'GROUP#',
  membershipPrefix: 'GROUPMEMBER#',
  membersOf: (groupId: number) => `GROUPMEMBER#${pad(groupId)}#`,
} as const;
