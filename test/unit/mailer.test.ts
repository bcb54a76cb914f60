import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer';
import { OutboxMailer } from '../../shared/adapters/local/outbox';
import { createMailer } from '../../shared/compose/mailer';
import { loadConfig } from '../../shared/config';
import type { Logger } from '../../shared/log';

const ses = mockClient(SESClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => ses.restore());
afterEach(() => ses.reset());

function recordingLogger(lines: Array<{ message: string; fields?: Record<string, unknown> }>): Logger {
  const write = (message: string, fields?: Record<string, unknown>) => {
    lines.push({ message, ...(fields ? { fields } : {}) });
  };
  const logger: Logger = { debug: write, info: write, warn: write, error: write, child: () => logger };
  return logger;
}

describe('SesMailer', () => {
  it('sends one plain-text SendEmail from the configured identity', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }), 'invites@example.com');
    await mailer.send({
      to: 'ann@example.com',
      subject: 'You are invited\r\nBcc: evil@example.com',
      text: 'Hello\nFollow the link.',
      link: 'https://app.example.com/invitations/abc',
    });
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({
      Source: 'invites@example.com',
      Destination: { ToAddresses: ['ann@example.com'] },
      Message: {
        Subject: { Data: 'You are invited Bcc: evil@example.com', Charset: 'UTF-8' },
        Body: { Text: { Data: 'Hello\nFollow the link.', Charset: 'UTF-8' } },
      },
    });
  });

  it('rejects when SES refuses the message', async () => {
    ses.on(SendEmailCommand).rejects(new Error('MessageRejected'));
    const mailer = new SesMailer(new SESClient({ region: 'eu-west-1' }), 'invites@example.com');
    await expect(mailer.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow(
      'MessageRejected',
    );
  });
});

describe('OutboxMailer', () => {
  it('writes an .eml file and logs its file and link', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    try {
      const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const clock = () => new Date('2026-01-02T03:04:05.000Z');
      const mailer = new OutboxMailer(
        join(dir, 'outbox'),
        'tenantbase@localhost',
        recordingLogger(lines),
        clock,
      );
      await mailer.send({
        to: 'ann@example.com',
        subject: 'Welcome',
        text: 'Line one\nhttp://x/invitations/t',
        link: 'http://x/invitations/t',
      });
      const files = readdirSync(join(dir, 'outbox'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^2026-01-02T03-04-05-000Z-.+\.eml$/);
      const eml = readFileSync(join(dir, 'outbox', files[0] as string), 'utf8');
      expect(eml).toContain('From: tenantbase@localhost\r\n');
      expect(eml).toContain('To: ann@example.com\r\n');
      expect(eml).toContain('Subject: Welcome\r\n');
      expect(eml).toContain('\r\n\r\nLine one\r\nhttp://x/invitations/t\r\n');
      expect(lines).toEqual([
        {
          message: 'mail written to the local outbox',
          fields: expect.objectContaining({ link: 'http://x/invitations/t', to: 'ann@example.com' }),
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the outbox and a secret the message carries', () => {
  it('keeps the secret in the .eml file and out of the log line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-secret-'));
    try {
      const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const mailer = new OutboxMailer(
        join(dir, 'outbox'),
        'platform@localhost',
        recordingLogger(lines),
        () => new Date(),
      );
      const secret = 'q1W8kH0nV3xZ7bT2rY5uE9iO4pA6sD1fG8hJ3kL0zX7';
      await mailer.send({
        to: 'ann@example.com',
        subject: 'Join',
        text: `Open http://x/invitations/${secret}`,
        link: `http://x/invitations/${secret}`,
        secret,
      });
      const [file] = readdirSync(join(dir, 'outbox'));
      expect(readFileSync(join(dir, 'outbox', file as string), 'utf8')).toContain(secret);
      expect(JSON.stringify(lines)).not.toContain(secret);
      expect(lines[0]?.fields?.link).toBe('http://x/invitations/[secret]');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('createMailer', () => {
  const log = recordingLogger([]);
  const clock = () => new Date();
  it('chooses SES when a sender identity is configured', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    const config = loadConfig({ MAIL_SES_SENDER: 'invites@example.com' });
    const mailer = createMailer(config, log, clock);
    expect(mailer).not.toBeInstanceOf(OutboxMailer);
    await mailer.send({ to: 'ann@example.com', subject: 's', text: 't' });
    await mailer.send({ to: 'bob@example.com', subject: 's', text: 't' });
    const calls = ses.commandCalls(SendEmailCommand);
    expect(calls.map((call) => call.args[0].input.Source)).toEqual([
      'invites@example.com',
      'invites@example.com',
    ]);
    expect(calls.map((call) => call.args[0].input.Destination?.ToAddresses)).toEqual([
      ['ann@example.com'],
      ['bob@example.com'],
    ]);
  });
  it('chooses the local outbox otherwise', () => {
    expect(createMailer(loadConfig({}), log, clock)).toBeInstanceOf(OutboxMailer);
  });
});
