import { join } from 'node:path';
import { OutboxMailer } from '../adapters/local/outbox';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { onFirstUse } from '../lazy';
import type { Logger } from '../log';
import type { Mailer } from '../mail/mailer';

/**
 * Sends through SES, loading the SDK client on the first message: most groups never send mail, and a static
 * import would put the SES client (about 25 KiB minified) in every Lambda's cold start.
 */
function lazySesMailer(region: string, sender: string): Mailer {
  const mailer = onFirstUse(async (): Promise<Mailer> => {
    const [{ SESClient }, { SesMailer }] = await Promise.all([
      import('@aws-sdk/client-ses'),
      import('../adapters/aws/ses-mailer'),
    ]);
    return new SesMailer(new SESClient({ region }), sender);
  });
  return {
    async send(message) {
      await (await mailer()).send(message);
    },
  };
}

/** SES when a sender identity is configured (MAIL_SES_SENDER), the local outbox otherwise. */
export function createMailer(config: Config, log: Logger, clock: Clock): Mailer {
  if (config.mail.sesSender) return lazySesMailer(config.region, config.mail.sesSender);
  return new OutboxMailer(outboxDirectory(config), config.mail.from, log, clock);
}

/** Where the local outbox keeps its messages: `<DATA_DIR>/outbox` (the local Mail view reads it). */
export function outboxDirectory(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'outbox');
}
