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

/** An invitation as a list item: no inviter object, no delivery metadata. */
export function listedInvitationView(invitation: StoredInvitation, invitee: User | undefined) {
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

/** The public details: the inviter without its uuid. */
export function publicInvitationView(
  invitation: StoredInvitation,
  invitee: User | undefined,
  inviter: User | undefined,
) {
  const { uuid: _uuid, ...inviterFields } = inviterView(inviter, invitation.invited_by);
  return { ...listedInvitationView(invitation, invitee), invited_by_user: inviterFields };
}
