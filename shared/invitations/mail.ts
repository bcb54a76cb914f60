import type { Config } from '../config';
import type { MailMessage } from '../mail/mailer';
import type { StoredInvitation } from './model';

/**
 * The invitation e-mail. The server chooses the wording: someone who already uses the platform (an active user) is
 * asked to sign in and accept; someone new (an inactive placeholder user) is asked to set up an account.
 */
export type InvitationWording = 'sign-in' | 'first-time-setup';

/** The acceptance link: the configured base and the token. */
export function acceptanceLink(config: Config, invitation: StoredInvitation): string {
  return `${config.mail.invitationLinkBase}/${invitation.uuid}`;
}

/** The message inviting the invitee, in the wording that fits whether the invitee already uses the platform. */
export function invitationMessage(
  config: Config,
  invitation: StoredInvitation,
  wording: InvitationWording,
): MailMessage {
  const link = acceptanceLink(config, invitation);
  const org = invitation.organization_name;
  if (wording === 'sign-in') {
    return {
      to: invitation.invitee_identifier,
      subject: `You have been invited to join ${org}`,
      text: [
        `You have been invited to join the organization ${org}.`,
        '',
        'You already have an account: open the link below, confirm your name and choose your password to join.',
        'The password you choose replaces your current one.',
        '',
        link,
      ].join('\n'),
      link,
    };
  }
  return {
    to: invitation.invitee_identifier,
    subject: `Set up your account to join ${org}`,
    text: [
      `You have been invited to join the organization ${org}.`,
      '',
      'To set up your account, open the link below and enter your name and a password.',
      '',
      link,
    ].join('\n'),
    link,
  };
}
