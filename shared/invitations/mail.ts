import type { Config } from '../config';
import { type MailMessage, quotedName } from '../mail/mailer';
import { passwordChangedNotice } from '../mail/notices';
import type { StoredInvitation } from './model';

/**
 * The invitation e-mail. The server chooses the wording: someone who already uses the platform (an active user) is
 * asked to sign in and accept; someone new (an inactive placeholder user) is asked to set up an account. The
 * organization's name is someone else's words, so it is always quoted (`quotedName`).
 */
export type InvitationWording = 'sign-in' | 'first-time-setup';

/** The acceptance link: the configured base and the token (which only this e-mail carries). */
export function acceptanceLink(config: Config, token: string): string {
  return `${config.mail.invitationLinkBase}/${token}`;
}

/** The message inviting the invitee, in the wording that fits whether the invitee already uses the platform. */
export function invitationMessage(
  config: Config,
  invitation: StoredInvitation,
  token: string,
  wording: InvitationWording,
): MailMessage {
  const link = acceptanceLink(config, token);
  const org = quotedName(invitation.organization_name);
  const expires = `The link works until ${invitation.expires_at}; after that, ask the organization to send it again.`;
  if (wording === 'sign-in') {
    return {
      to: invitation.invitee_identifier,
      subject: `You have been invited to join the organization ${org}`,
      text: [
        `You have been invited to join the organization ${org}.`,
        '',
        'You already have an account: open the link below, confirm your name and choose your password to join.',
        'The password you choose replaces your current one.',
        '',
        link,
        '',
        expires,
      ].join('\n'),
      link,
      secret: token,
    };
  }
  return {
    to: invitation.invitee_identifier,
    subject: `Set up your account to join the organization ${org}`,
    text: [
      `You have been invited to join the organization ${org}.`,
      '',
      'To set up your account, open the link below and enter your name and a password.',
      '',
      link,
      '',
      expires,
    ].join('\n'),
    link,
    secret: token,
  };
}

/** The notice to an existing account whose password an acceptance replaced. */
export function passwordChangedByInvitation(email: string, organizationName: string): MailMessage {
  return passwordChangedNotice(
    email,
    `when an invitation to join the organization ${quotedName(organizationName)} was accepted with the link sent to this address`,
  );
}
