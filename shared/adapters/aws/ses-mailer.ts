import { type SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import { headerSafe, type Mailer, type MailMessage } from '../../mail/mailer';

/** Sends mail through Amazon SES from the configured, verified sender identity. */
export class SesMailer implements Mailer {
  constructor(
    private readonly ses: SESClient,
    private readonly sender: string,
  ) {}

  /** One SendEmail call per message: plain text, UTF-8. */
  async send(message: MailMessage): Promise<void> {
    await this.ses.send(
      new SendEmailCommand({
        Source: this.sender,
        Destination: { ToAddresses: [headerSafe(message.to)] },
        Message: {
          Subject: { Data: headerSafe(message.subject), Charset: 'UTF-8' },
          Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
        },
      }),
    );
  }
}
