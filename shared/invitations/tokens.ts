import { createHash, randomBytes } from 'node:crypto';

/**
 * The invitation token: the only credential of the public details and acceptance endpoints. It is 32 bytes (256
 * bits) from the CSPRNG, written base64url (43 characters), minted at create and again at every resend, and only
 * the e-mail carries it: the store keeps its SHA-256 (a sentinel item per token, docs/data-model.md), answers
 * never show it, logs show at most a short hash of it. It is never the invitation's `uuid`, which the inviting
 * organization sees and manages the invitation with.
 */
const tokenBytes = 32;

/** The form of a token; anything else (a uuid, say) is answered like an unknown token without a lookup. */
export const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** The stored form of a token: its SHA-256, hex. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new token and its hash. */
export function mintToken(): { token: string; hash: string } {
  const token = randomBytes(tokenBytes).toString('base64url');
  return { token, hash: tokenHash(token) };
}
