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
  /**
   * A credential the message carries (an invitation's token, in its text and link): the message itself may show
   * it (it is the e-mail), a log line never does; the outbox logs the link with it replaced by `[secret]`.
   */
  readonly secret?: string | undefined;
}

export interface Mailer {
  /** Sends one message; rejects when the provider refuses it. */
  send(message: MailMessage): Promise<void>;
}

/** Header values never carry line breaks: a name or address with CR/LF could otherwise inject headers. */
export function headerSafe(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').trim();
}

/** `value` with every occurrence of `secret` replaced by `[secret]` (for log lines about a message). */
export function withoutSecret(value: string | undefined, secret: string | undefined): string | undefined {
  if (value === undefined || !secret) return value;
  return value.split(secret).join('[secret]');
}

/**
 * Control characters (C0, DEL, C1), invisible formatting characters (bidirectional overrides and isolates,
 * zero-width characters, the byte order mark) and line and paragraph separators: none of them belongs in a name
 * quoted in a message.
 */
const unsafeInName = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * A name that someone else chose (an organization's), quoted for a message's subject or text so that it cannot pass
 * for the platform's own words: control and formatting characters become spaces, white space is collapsed, double
 * quotes become single ones (the quote cannot be closed early), at most 100 characters are kept, and the result is
 * wrapped in double quotes.
 */
export function quotedName(name: string): string {
  const clean = name.replace(unsafeInName, ' ').replace(/\s+/g, ' ').replace(/"/g, "'").trim();
  const short = clean.length > 100 ? `${clean.slice(0, 99)}…` : clean;
  return `"${short}"`;
}
