import type { User } from '../accounts/model';
import type { StoredInvitation } from './model';

/** The inviter as the organization's views show it. */
export function inviterView(user: User | undefined, id: number) {
  return {
    id,
    uuid: user?.uuid ?? '',
    username: user?.username ?? '',
    email: user?.email ?? '',
    first_name: user?.first_name ?? '',
    last_name: user?.last_name ?? '',
  };
}

function inviteeView(user: User | undefined) {
  if (!user) return null;
  return {
    id: user.id,
    uuid: user.uuid,
    username: user.username,
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    is_active: user.is_active,
  };
}

/** An invitation with its invitee as given: no inviter object, no token hash, no delivery metadata. */
function baseView(invitation: StoredInvitation, invitee: User | undefined) {
  return {
    id: invitation.id,
    uuid: invitation.uuid,
    organization: invitation.organization,
    organization_name: invitation.organization_name,
    invitee_identifier: invitation.invitee_identifier,
    invited_by: invitation.invited_by,
    invitee: invitee ? invitee.id : null,
    invitee_user: inviteeView(invitee),
    config: invitation.config,
    created: invitation.created,
  };
}

/**
 * An invitation as the organization's list shows it. Until acceptance the invitee is not shown (`invitee` and
 * `invitee_user` null): whether the e-mail already had an account is none of the inviter's business (it would
 * enumerate accounts). Once accepted the invitee is a member of the organization, and shown.
 */
export function listedInvitationView(invitation: StoredInvitation, invitee: User | undefined) {
  return baseView(invitation, invitation.used ? invitee : undefined);
}

/** An invitation with its inviter (the organization's views). */
export function invitationView(
  invitation: StoredInvitation,
  invitee: User | undefined,
  inviter: User | undefined,
) {
  return {
    ...listedInvitationView(invitation, invitee),
    invited_by_user: inviterView(inviter, invitation.invited_by),
  };
}

/**
 * The public details, read with the token that only the invitee's e-mail carries: the inviter without its uuid,
 * and the invitee's account (its holder owns the address, so it may see whether the address has an account).
 */
export function publicInvitationView(
  invitation: StoredInvitation,
  invitee: User | undefined,
  inviter: User | undefined,
) {
  const { uuid: _uuid, ...inviterFields } = inviterView(inviter, invitation.invited_by);
  return { ...baseView(invitation, invitee), invited_by_user: inviterFields };
}
