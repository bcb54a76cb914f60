import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/**
 * TOTP (RFC 6238) through `otpauth`: SHA-1, 6 digits, 30-second steps, the parameters every authenticator app
 * reads from an `otpauth://` URI. A code is checked in a window of one step either side, and the step it matched
 * is returned so that the caller can refuse it once it was used (shared/mfa/factors.ts keeps the last step).
 */
export const totpPeriodSeconds = 30;
const digits = 6;
const algorithm = 'SHA1';
/** How many steps before and after the current one a code may belong to. */
export const totpWindow = 1;

/** A new shared secret: 160 random bits (RFC 4226's recommended length), in base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, label = 'account', issuer = 'Tenantbase'): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm,
    digits,
    period: totpPeriodSeconds,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://totp/...` URI an app enrols from (also the QR code's text). */
export function otpauthUri(secret: string, label: string, issuer: string): string {
  return totpOf(secret, label, issuer).toString();
}

/** The QR code of a URI as an SVG document (no native build, no canvas). */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** The time step a code belongs to at `now` (within the window), or undefined when it matches none. */
export function matchingStep(secret: string, code: string, now: Date): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  const totp = totpOf(secret);
  const timestamp = now.getTime();
  const delta = totp.validate({ token: code, timestamp, window: totpWindow });
  return delta === null ? undefined : totp.counter({ timestamp }) + delta;
}

/** The code of a step (tests and the enrolment check compute codes this way). */
export function totpCode(secret: string, now: Date): string {
  return totpOf(secret).generate({ timestamp: now.getTime() });
}
