import { join } from 'node:path';
import { SESClient } from '@aws-sdk/client-ses';
import { SesMailer } from '../adapters/aws/ses-mailer';
import { OutboxMailer } from '../adapters/local/outbox';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Mailer } from './mailer';

/** SES when a sender identity is configured (MAIL_SES_SENDER), the local outbox otherwise. */
export function createMailer(config: Config, log: Logger, clock: Clock): Mailer {
  if (config.mail.sesSender)
    return new SesMailer(new SESClient({ region: config.region }), config.mail.sesSender);
  return new OutboxMailer(join(config.dataDir, 'outbox'), config.mail.from, log, clock);
}
