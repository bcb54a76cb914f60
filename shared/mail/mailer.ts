/**
 * The mail port: the platform sends e-mail (invitations) through it. In the cloud the SES adapter sends it
 * (shared/adapters/aws/ses-mailer.ts); locally, and wherever no sender identity is configured, the outbox adapter
 * writes each message as a `.eml` file (shared/adapters/local/outbox.ts).
 */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  /** Plain-text body. */
  readonly text: string;
  /** The one link the message asks the reader to follow; the local outbox logs it so a developer can click it. */
  readonly link?: string | undefined;
}

export interface Mailer {
  /** Sends one message; rejects when the provider refuses it. */
  send(message: MailMessage): Promise<void>;
}

/** Header values never carry line breaks: a name or address with CR/LF could otherwise inject headers. */
export function headerSafe(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').trim();
}
