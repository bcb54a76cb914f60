import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { gsi, keys } from '../accounts/keys';
import type { Organization, SitePermission, User } from '../accounts/model';
import { getOrganization } from '../accounts/organizations';
import { enforcePasswordPolicy } from '../accounts/password-policy';
import { hashPassword } from '../accounts/passwords';
import { createUser, getUser } from '../accounts/users';
import { iso } from '../clock';
import { GoneError, NotFoundError } from '../errors';
import { existingGroups } from '../groups/lookup';
import { groupKeys } from '../groups/model';
import { endUnverifiedLinks } from '../social/unverified-links';
import { failedConditions } from '../store/store';
import { invitationKeys, type StoredInvitation } from './model';
import { type InvitationDeps, organizationSiteSlugs, siteGrants } from './service';

export interface Acceptance {
  password: string;
  first_name: string;
  last_name: string;
}

/** The permissions one site grants the invitee. */
interface SiteGrant {
  site: string;
  permissions: SitePermission[];
}

/** The answer to an invitation that is already used. */
export const alreadyAccepted = () =>
  new GoneError({ message: 'This invitation has already been accepted.', code: 'invitation_used' });

/** The invitee's account; a placeholder removed meanwhile is created again (inactive until the transaction). */
async function inviteeOf(deps: InvitationDeps, invitation: StoredInvitation): Promise<User> {
  const user = await getUser(deps.store, invitation.invitee);
  if (user) return user;
  return createUser(
    deps,
    { email: invitation.invitee_identifier, is_active: false, password: null },
    { scope: { organization: invitation.organization_slug } },
  );
}

/** The site permissions to grant: the organization's sites only, each merged with what the user already has. */
async function grantsOf(deps: InvitationDeps, invitation: StoredInvitation, userId: number) {
  const sites = await organizationSiteSlugs(deps, invitation.organization_slug);
  const grants: SiteGrant[] = [];
  for (const { slug, permissions } of siteGrants(invitation.config)) {
    if (!sites.has(slug)) continue;
    const current = await deps.store.doc.send(
      new GetCommand({ TableName: deps.store.table, Key: keys.sitePermission(slug, userId) }),
    );
    const held = (current.Item?.permissions as SitePermission[] | undefined) ?? [];
    grants.push({ site: slug, permissions: [...new Set([...held, ...permissions])] });
  }
  return grants;
}

/**
 * The group memberships to write: the invitation's groups that still exist as the same groups (a deleted group is
 * skipped, like a site the organization no longer has); an existing membership keeps its date.
 */
async function groupUpdates(deps: InvitationDeps, invitation: StoredInvitation, userId: number, now: string) {
  const org = invitation.organization_slug;
  const groups = await existingGroups(deps.store, org, invitation.group_refs ?? []);
  return groups.map((group) => ({
    Update: {
      TableName: deps.store.table,
      Key: groupKeys.membership(org, group.id, userId),
      UpdateExpression:
        'SET group_id = :gid, group_slug = :gslug, user_id = :uid, added_at = if_not_exists(added_at, :now)',
      ExpressionAttributeValues: { ':gid': group.id, ':gslug': group.slug, ':uid': userId, ':now': now },
    },
  }));
}

/** The invitation becomes used, on condition that it exists and was not used (item 0 of the transaction). */
function invitationUsed(table: string, invitation: StoredInvitation, now: string) {
  return {
    Update: {
      TableName: table,
      Key: invitationKeys.invitation(invitation.uuid),
      UpdateExpression: 'SET used = :true, accepted_at = :now',
      ConditionExpression: 'attribute_exists(PK) AND used = :false',
      ExpressionAttributeValues: { ':true': true, ':false': false, ':now': now },
    },
  };
}

/** The invitee becomes active with the new names and password, ending earlier sessions (item 1). */
async function inviteeActivated(table: string, user: User, input: Acceptance) {
  return {
    Update: {
      TableName: table,
      Key: keys.user(user.id),
      UpdateExpression:
        'SET password_hash = :hash, first_name = :first, last_name = :last, is_active = :true ADD token_version :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: {
        ':hash': await hashPassword(input.password),
        ':first': input.first_name,
        ':last': input.last_name,
        ':true': true,
        ':one': 1,
      },
    },
  };
}

/** The invitee joins the organization, keeping an existing role and joining date. */
function organizationJoined(table: string, org: string, userId: number, now: string) {
  return {
    Update: {
      TableName: table,
      Key: keys.member(org, userId),
      UpdateExpression:
        'SET organization = :org, user_id = :uid, #role = if_not_exists(#role, :member), joined_at = if_not_exists(joined_at, :now), GSI1PK = :gpk, GSI1SK = :gsk',
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: {
        ':org': org,
        ':uid': userId,
        ':member': 'member',
        ':now': now,
        ':gpk': gsi.userMemberships(userId),
        ':gsk': `ORG#${org}`,
      },
    },
  };
}

/** One site's permissions, already merged with what the user held. */
function sitePermissionsGranted(table: string, grant: SiteGrant, userId: number, now: string) {
  return {
    Put: {
      TableName: table,
      Item: {
        ...keys.sitePermission(grant.site, userId),
        GSI1PK: gsi.userSitePermissions(userId),
        GSI1SK: `SITE#${grant.site}`,
        site: grant.site,
        user_id: userId,
        permissions: grant.permissions,
        updated_at: now,
      },
    },
  };
}

/**
 * Accepts an invitation in one DynamoDB transaction: the invitation becomes used (on condition that it was not),
 * the user becomes active with the new names and password (ending earlier sessions), joins the organization
 * (keeping an existing role and every other membership), joins the invitation's groups and receives the site
 * permissions. Either all of it happens or none: a parallel acceptance loses on the invitation's condition and
 * gets the 410.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  invitation: StoredInvitation,
  input: Acceptance,
): Promise<{ user: User; organization: Organization }> {
  const organization = await getOrganization(deps.store, invitation.organization_slug);
  if (!organization) throw new NotFoundError();
  const user = await inviteeOf(deps, invitation);
  await enforcePasswordPolicy(input.password, [user.username, user.email, input.first_name, input.last_name]);
  // The invitee proved the address: provider links made with it unverified end first (pre-hijacking guard).
  await endUnverifiedLinks(deps.store, user.id);
  const grants = await grantsOf(deps, invitation, user.id);
  const now = iso(deps.clock());
  const groups = await groupUpdates(deps, invitation, user.id, now);
  const table = deps.store.table;
  try {
    await deps.store.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          invitationUsed(table, invitation, now),
          await inviteeActivated(table, user, input),
          organizationJoined(table, organization.slug, user.id, now),
          ...grants.map((grant) => sitePermissionsGranted(table, grant, user.id, now)),
          ...groups,
        ],
      }),
    );
  } catch (error) {
    const failed = failedConditions(error);
    if (failed?.includes(0)) throw alreadyAccepted();
    // The invitee's account was deleted between the read and the transaction: nothing happened.
    if (failed?.includes(1)) throw new NotFoundError();
    throw error;
  }
  return {
    user: { ...user, first_name: input.first_name, last_name: input.last_name, is_active: true },
    organization,
  };
}
