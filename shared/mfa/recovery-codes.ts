import { createHash, randomBytes } from 'node:crypto';

/**
 * Recovery codes: ten per confirmed factor, shown once, kept only as their SHA-256 (each has 50 random bits, so a
 * fast hash is enough: nobody can try 2^50 guesses through a throttled endpoint, and a stolen table holds no code).
 * Each is spent by the conditional write that deletes its hash (shared/mfa/second-factor.ts).
 */
export const recoveryCodeCount = 10;

const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';

/** One code: ten characters of an unambiguous alphabet (no 0/o, 1/l), written `xxxxx-xxxxx`. */
function newCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => alphabet[byte % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, newCode);
}

/** The form a typed code is compared in: lower case, without spaces or hyphens. */
export function normalRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export function recoveryCodeHash(code: string): string {
  return createHash('sha256')
    .update(`recovery:${normalRecoveryCode(code)}`)
    .digest('hex');
}
