import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { gsi, keys } from '../accounts/keys';
import type { Organization, SitePermission, User } from '../accounts/model';
import { getOrganization } from '../accounts/organizations';
import { enforcePasswordPolicy } from '../accounts/password-policy';
import { hashPassword } from '../accounts/passwords';
import { endEarlierSessions, getUser } from '../accounts/users';
import { iso } from '../clock';
import { ConflictError, GoneError, NotFoundError, PermissionDeniedError } from '../errors';
import { existingGroups } from '../groups/lookup';
import { groupKeys } from '../groups/model';
import type { Logger } from '../log';
import { quotedName } from '../mail/mailer';
import { afterProof } from '../social/proof';
import { onConditionFailure, rethrow, transact } from '../store/writes';
import { passwordChangedByInvitation } from './mail';
import { invitationKeys, type StoredInvitation } from './model';
import { getInvitation } from './repository';
import {
  createPlaceholder,
  type InvitationDeps,
  isExpired,
  organizationSiteSlugs,
  siteGrants,
} from './service';

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

/** The answer to an invitation whose link is past its expiry (like a used one: 410). */
export const expired = () =>
  new GoneError({
    message: 'This invitation has expired: ask the organization to send it again.',
    code: 'invitation_expired',
  });

/** The answer to an acceptance for an account that was deactivated: an invitation never activates it. */
const accountDeactivated = () =>
  new PermissionDeniedError({
    code: 'account_deactivated',
    message: 'This account has been deactivated; accepting an invitation does not activate it.',
  });

/** The 410 a pending-looking invitation deserves now, if any: used, then expired. */
export function goneReason(deps: InvitationDeps, invitation: StoredInvitation) {
  if (invitation.used) return alreadyAccepted();
  if (isExpired(deps, invitation)) return expired();
  return undefined;
}

/**
 * The invitee's account and whether it is the placeholder an invitation made (the only inactive account an
 * acceptance activates); a placeholder removed meanwhile is created again. An inactive account without the
 * placeholder mark was deactivated (or made inactive) by a superuser: 403.
 */
async function inviteeOf(
  deps: InvitationDeps,
  invitation: StoredInvitation,
): Promise<{ user: User; placeholder: boolean }> {
  const user =
    (await getUser(deps.store, invitation.invitee)) ??
    (await createPlaceholder(deps, invitation.invitee_identifier, invitation.organization_slug));
  if (user.is_active) return { user, placeholder: false };
  const mark = await deps.store.doc.send(
    new GetCommand({
      TableName: deps.store.table,
      Key: invitationKeys.placeholder(user.id),
      ConsistentRead: true,
    }),
  );
  if (!mark.Item) throw accountDeactivated();
  return { user, placeholder: true };
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

/**
 * The invitation becomes used, on condition that it exists, was not used, still carries the token presented (a
 * resend replaces it) and has not expired (item 0 of the transaction).
 */
function invitationUsed(table: string, invitation: StoredInvitation, now: string) {
  return {
    Update: {
      TableName: table,
      Key: invitationKeys.invitation(invitation.uuid),
      UpdateExpression: 'SET used = :true, accepted_at = :now',
      ConditionExpression:
        'attribute_exists(PK) AND used = :false AND token_hash = :hash AND expires_at > :now',
      ExpressionAttributeValues: {
        ':true': true,
        ':false': false,
        ':now': now,
        ':hash': invitation.token_hash,
      },
    },
  };
}

/**
 * The invitee becomes active with the new names and password; like every password change it ends the account's
 * earlier sessions and tokens (item 1). An account that was active must still be: a deactivation meanwhile wins.
 */
async function inviteeActivated(table: string, user: User, placeholder: boolean, input: Acceptance) {
  return {
    Update: {
      TableName: table,
      Key: keys.user(user.id),
      // The link followed went to the address: it is proven, and what was attached before ends (social/proof.ts).
      UpdateExpression: `SET password_hash = :hash, first_name = :first, last_name = :last, is_active = :true, email_verified = :true ${endEarlierSessions.expression}`,
      ConditionExpression: placeholder
        ? 'attribute_exists(PK)'
        : 'attribute_exists(PK) AND is_active = :true',
      ExpressionAttributeValues: {
        ':hash': await hashPassword(input.password),
        ':first': input.first_name,
        ':last': input.last_name,
        ':true': true,
        ...endEarlierSessions.values,
      },
    },
  };
}

/** The placeholder's mark goes with its activation (item 2 when the invitee is a placeholder). */
function placeholderActivated(table: string, userId: number) {
  return {
    Delete: {
      TableName: table,
      Key: invitationKeys.placeholder(userId),
      ConditionExpression: 'attribute_exists(PK)',
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
 * Accepts an invitation in one DynamoDB transaction: the invitation becomes used (on condition that it was not, that
 * the token presented is still its token and has not expired), the user becomes active with the new names and
 * password (ending earlier sessions), joins the organization (keeping an existing role and every other membership),
 * joins the invitation's groups and receives the site permissions. Either all of it happens or none: a parallel
 * acceptance loses on the invitation's condition and gets the 410. Only the placeholder an invitation made is
 * activated: an account a superuser deactivated gets 403. An existing account whose password was replaced is told
 * by e-mail.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  log: Logger,
  invitation: StoredInvitation,
  input: Acceptance,
): Promise<{ user: User; organization: Organization }> {
  const organization = await getOrganization(deps.store, invitation.organization_slug);
  if (!organization) throw new NotFoundError();
  const { user, placeholder } = await inviteeOf(deps, invitation);
  await enforcePasswordPolicy(input.password, [user.username, user.email, input.first_name, input.last_name]);
  const grants = await grantsOf(deps, invitation, user.id);
  const now = iso(deps.clock());
  const groups = await groupUpdates(deps, invitation, user.id, now);
  const table = deps.store.table;
  await onConditionFailure(
    transact(deps.store, [
      invitationUsed(table, invitation, now),
      await inviteeActivated(table, user, placeholder, input),
      ...(placeholder ? [placeholderActivated(table, user.id)] : []),
      organizationJoined(table, organization.slug, user.id, now),
      ...grants.map((grant) => sitePermissionsGranted(table, grant, user.id, now)),
      ...groups,
    ]),
    async (failed, error) => {
      if (failed.includes(0)) {
        // Used, expired, resent (the token presented is not its token any more) or cancelled meanwhile.
        const latest = await getInvitation(deps.store, invitation.uuid);
        const gone = latest?.token_hash === invitation.token_hash ? goneReason(deps, latest) : undefined;
        throw gone ?? new NotFoundError();
      }
      if (failed.includes(1)) {
        // The invitee's account was deactivated or deleted between the read and the transaction: nothing happened.
        const current = await getUser(deps.store, user.id);
        throw current ? accountDeactivated() : new NotFoundError();
      }
      if (failed.includes(2) && placeholder)
        throw new ConflictError({
          code: 'invitation_conflict',
          message: 'The account changed meanwhile; try again.',
        });
      return rethrow(error);
    },
  );
  if (!placeholder) await tellPasswordChanged(deps, log, user, organization);
  // The address is proven from the transaction on: links attached before it no longer count, and go now.
  await afterProof(
    deps,
    log,
    user,
    `when an invitation to join the organization ${quotedName(organization.name)} was accepted with the link sent to this address`,
  );
  return {
    user: { ...user, first_name: input.first_name, last_name: input.last_name, is_active: true },
    organization,
  };
}

/**
 * The notice to an existing account that an acceptance replaced its password (like a reset by e-mail). A refused
 * message does not undo the acceptance: it is logged.
 */
async function tellPasswordChanged(
  deps: InvitationDeps,
  log: Logger,
  user: User,
  organization: Organization,
) {
  try {
    await deps.mailer.send(passwordChangedByInvitation(user.email, organization.name));
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log.error('password change notice not sent', { user_id: user.id, reason });
  }
}
