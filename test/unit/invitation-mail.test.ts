import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer';
import { loadConfig } from '../../shared/config';
import { invitationMessage } from '../../shared/invitations/mail';
import type { StoredInvitation } from '../../shared/invitations/model';

const ses = mockClient(SESClient);
afterEach(() => ses.reset());

const config = loadConfig({
  MAIL_SES_SENDER: 'invites@example.com',
  INVITATION_LINK_BASE: 'https://app.example.com/join/',
});

const invitation: StoredInvitation = {
  id: 7,
  uuid: '3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c',
  organization: 3,
  organization_slug: 'acme',
  organization_name: 'Acme',
  invitee_identifier: 'ann@example.com',
  invited_by: 1,
  invitee: 9,
  config: { group: [], site: [] },
  created: '2026-01-01T00:00:00.000Z',
  used: false,
  accepted_at: null,
  delivery: { sent_count: 0, last_sent_at: null, last_error: null },
};

async function sentInput(wording: 'sign-in' | 'first-time-setup') {
  ses.on(SendEmailCommand).resolves({ MessageId: 'm' });
  const mailer = new SesMailer(new SESClient({ region: 'us-east-1' }), config.mail.sesSender as string);
  await mailer.send(invitationMessage(config, invitation, wording));
  return ses.commandCalls(SendEmailCommand)[0]?.args[0].input;
}

const link = 'https://app.example.com/join/3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c';

describe('the invitation e-mail through SES', () => {
  it('asks a new user to set up an account', async () => {
    expect(await sentInput('first-time-setup')).toEqual({
      Source: 'invites@example.com',
      Destination: { ToAddresses: ['ann@example.com'] },
      Message: {
        Subject: { Data: 'Set up your account to join Acme', Charset: 'UTF-8' },
        Body: {
          Text: {
            Data: [
              'You have been invited to join the organization Acme.',
              '',
              'To set up your account, open the link below and enter your name and a password.',
              '',
              link,
            ].join('\n'),
            Charset: 'UTF-8',
          },
        },
      },
    });
  });

  it('asks an existing user to sign in and accept', async () => {
    expect(await sentInput('sign-in')).toEqual({
      Source: 'invites@example.com',
      Destination: { ToAddresses: ['ann@example.com'] },
      Message: {
        Subject: { Data: 'You have been invited to join Acme', Charset: 'UTF-8' },
        Body: {
          Text: {
            Data: [
              'You have been invited to join the organization Acme.',
              '',
              'You already have an account: open the link below, confirm your name and choose your password to join.',
              'The password you choose replaces your current one.',
              '',
              link,
            ].join('\n'),
            Charset: 'UTF-8',
          },
        },
      },
    });
  });
});
