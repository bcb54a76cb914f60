import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer';
import { loadConfig } from '../../shared/config';
import { invitationMessage } from '../../shared/invitations/mail';
import type { StoredInvitation } from '../../shared/invitations/model';
import { quotedName } from '../../shared/mail/mailer';

const ses = mockClient(SESClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => ses.restore());
afterEach(() => ses.reset());

const config = loadConfig({
  MAIL_SES_SENDER: 'invites@example.com',
  INVITATION_LINK_BASE: 'https://app.example.com/join/',
});

const invitation: StoredInvitation = {
  id: 7,
  uuid: '3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c',
  token_hash: 'c0ffee',
  expires_at: '2026-01-08T00:00:00.000Z',
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
  await mailer.send(invitationMessage(config, invitation, token, wording));
  return ses.commandCalls(SendEmailCommand)[0]?.args[0].input;
}

const token = 'q1W8kH0nV3xZ7bT2rY5uE9iO4pA6sD1fG8hJ3kL0zX7';
const link = `https://app.example.com/join/${token}`;
const expiry =
  'The link works until 2026-01-08T00:00:00.000Z; after that, ask the organization to send it again.';

describe('the invitation e-mail through SES', () => {
  it('asks a new user to set up an account', async () => {
    expect(await sentInput('first-time-setup')).toEqual({
      Source: 'invites@example.com',
      Destination: { ToAddresses: ['ann@example.com'] },
      Message: {
        Subject: { Data: 'Set up your account to join the organization "Acme"', Charset: 'UTF-8' },
        Body: {
          Text: {
            Data: [
              'You have been invited to join the organization "Acme".',
              '',
              'To set up your account, open the link below and enter your name and a password.',
              '',
              link,
              '',
              expiry,
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
        Subject: { Data: 'You have been invited to join the organization "Acme"', Charset: 'UTF-8' },
        Body: {
          Text: {
            Data: [
              'You have been invited to join the organization "Acme".',
              '',
              'You already have an account: open the link below, confirm your name and choose your password to join.',
              'The password you choose replaces your current one.',
              '',
              link,
              '',
              expiry,
            ].join('\n'),
            Charset: 'UTF-8',
          },
        },
      },
    });
  });
});

describe('an organization name quoted in a message', () => {
  it('is wrapped in double quotes, which it cannot close early', () => {
    expect(quotedName('Acme')).toBe('"Acme"');
    expect(quotedName('Acme". Your account is locked, see "evil')).toBe(
      '"Acme\'. Your account is locked, see \'evil"',
    );
  });

  it('carries no control or invisible formatting characters, and at most 100 characters', () => {
    expect(quotedName('A\r\nSubject: x\u0000\u202eevil\u200b')).toBe('"A Subject: x evil"');
    const quoted = quotedName('x'.repeat(500));
    expect(quoted.length).toBe(102);
    expect(quoted.endsWith('…"')).toBe(true);
  });
});
