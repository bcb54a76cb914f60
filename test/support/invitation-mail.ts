import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestPlatform } from './platform';

/**
 * The invitation token travels only in the e-mail: tests read it, like the invitee would, from the local outbox
 * (each message is an `.eml` file under `<dataDir>/outbox/`).
 */

/** The outbox messages sent to an address, oldest first. */
export function outboxFor(platform: TestPlatform, email: string): string[] {
  const dir = join(platform.deps.config.dataDir, 'outbox');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .filter((eml) => eml.includes(`\r\nTo: ${email}\r\n`));
}

/** The token of an invitation e-mail's acceptance link (`INVITATION_LINK_BASE/<token>`). */
export function tokenOf(platform: TestPlatform, eml: string): string {
  const base = platform.deps.config.mail.invitationLinkBase;
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}/([A-Za-z0-9_-]+)`).exec(eml);
  if (!match?.[1]) throw new Error('The message carries no acceptance link');
  return match[1];
}

/** The token of the latest invitation e-mail sent to an address. */
export function latestToken(platform: TestPlatform, email: string): string {
  const invitations = outboxFor(platform, email).filter((eml) =>
    eml.includes(platform.deps.config.mail.invitationLinkBase),
  );
  const last = invitations.at(-1);
  if (!last) throw new Error(`No invitation e-mail was sent to ${email}`);
  return tokenOf(platform, last);
}
