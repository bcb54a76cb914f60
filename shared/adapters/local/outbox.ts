import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, writeFile } from 'node:fs/promises';
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

/** One message of the outbox as the local Mail view reads it (the route in shared/host/local/mail.ts). */
export interface OutboxMessage {
  /** The file's name without `.eml`: it starts with the time written, so names sort by time. */
  id: string;
  from: string;
  to: string;
  subject: string;
  date: string;
  text: string;
  /** Whether the file was longer than `outboxBounds.fileBytes` and its text was cut there. */
  truncated: boolean;
}

/** The outbox's bounds: the newest this many messages, each read up to this many bytes. */
export const outboxBounds = { messages: 50, fileBytes: 64 * 1024 } as const;

const messageFile = /^[0-9A-Za-z-]+\.eml$/;

/** The first `bytes` of a file, and whether there was more. */
async function head(path: string, bytes: number): Promise<{ text: string; more: boolean }> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes + 1);
    const { bytesRead } = await file.read(buffer, 0, bytes + 1, 0);
    return { text: buffer.subarray(0, Math.min(bytesRead, bytes)).toString('utf8'), more: bytesRead > bytes };
  } finally {
    await file.close();
  }
}

/** A `.eml` file this outbox wrote (`emlOf`), read back: its headers and its plain-text body. */
export function parseEml(id: string, eml: string, truncated: boolean): OutboxMessage {
  const split = eml.indexOf('\r\n\r\n');
  const headerText = split === -1 ? eml : eml.slice(0, split);
  const body = split === -1 ? '' : eml.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const date = new Date(headers.get('date') ?? '');
  return {
    id,
    from: headers.get('from') ?? '',
    to: headers.get('to') ?? '',
    subject: headers.get('subject') ?? '',
    date: Number.isNaN(date.getTime()) ? '' : date.toISOString(),
    text: body.replace(/\r\n/g, '\n').replace(/\n$/, ''),
    truncated,
  };
}

/**
 * The newest messages of an outbox directory, newest first: at most `outboxBounds.messages`, each read up to
 * `outboxBounds.fileBytes` (a longer one is cut and says so). A directory not made yet is an empty outbox.
 */
export async function readOutbox(directory: string): Promise<{ count: number; results: OutboxMessage[] }> {
  let names: string[];
  try {
    names = (await readdir(directory)).filter((name) => messageFile.test(name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { count: 0, results: [] };
    throw error;
  }
  names.sort().reverse();
  const newest = names.slice(0, outboxBounds.messages);
  const results = await Promise.all(
    newest.map(async (name) => {
      const { text, more } = await head(join(directory, name), outboxBounds.fileBytes);
      return parseEml(name.slice(0, -'.eml'.length), text, more);
    }),
  );
  return { count: names.length, results };
}
