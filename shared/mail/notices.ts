import type { MailMessage } from './mailer';

/**
 * The notice an account gets when its password was changed other than by the account itself with its current
 * password: `how` says how, in words the platform chose (any name in it quoted with `quotedName`). It carries no
 * link and no secret: it tells the owner of the address, who can reset the password or ask an administrator.
 */
export function passwordChangedNotice(to: string, how: string): MailMessage {
  return {
    to,
    subject: 'Your password was changed',
    text: [
      `The password of your account was changed ${how}.`,
      '',
      'Your other sessions were signed out. If you did not do this, contact an administrator of the platform.',
    ].join('\n'),
  };
}
