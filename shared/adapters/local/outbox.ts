import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../clock';
import type { Logger } from '../../log';
import { headerSafe, type Mailer, type MailMessage, withoutSecret } from '../../mail/mailer';

/**
 * The local mailer: every message becomes an RFC 5322 `.eml` file under `<dataDir>/outbox/`, which any mail client
 * opens, and the log line names the file and the message's link, so the local flow needs no mail server. A secret
 * the message carries (an invitation token) is in the file only: the logged link shows `[secret]` in its place.
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly directory: string,
    private readonly sender: string,
    private readonly log: Logger,
    private readonly clock: Clock,
  ) {}

  /** Writes the message as a new file; names sort by time. */
  async send(message: MailMessage): Promise<void> {
    const now = this.clock();
    const id = randomUUID();
    await mkdir(this.directory, { recursive: true });
    const file = join(this.directory, `${now.toISOString().replace(/[:.]/g, '-')}-${id}.eml`);
    await writeFile(file, emlOf(message, this.sender, now, id), { flag: 'wx' });
    this.log.info('mail written to the local outbox', {
      file,
      to: message.to,
      subject: message.subject,
      link: withoutSecret(message.link, message.secret),
    });
  }
}

/** The message as a plain-text RFC 5322 document. */
export function emlOf(message: MailMessage, sender: string, date: Date, id: string): string {
  const headers = [
    `From: ${headerSafe(sender)}`,
    `To: ${headerSafe(message.to)}`,
    `Subject: ${headerSafe(message.subject)}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <${id}@outbox.local>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${message.text.replace(/\r?\n/g, '\r\n')}\r\n`;
}
