import type { Sealed } from '../keys/envelope';
import type { EncryptionContext } from '../keys/keys';

/**
 * A user's second factors, kept on the user's own item (`USER#<id>`/`PROFILE`), so that the sign-in that reads the
 * user for its password check knows at once whether a second factor is needed, and the request pipeline's one
 * read of the user tells whether an organization's `require_mfa` is met. `publicUser` never shows them.
 */
export interface StoredTotp extends Sealed {
  /** The last time step whose code was accepted: a code of that step or an earlier one is refused (replay). */
  readonly last_step: number;
  readonly confirmed_at: string;
}

export interface PendingTotp extends Sealed {
  readonly created_at: string;
}

export interface MfaAttributes {
  readonly mfa_totp?: StoredTotp | undefined;
  readonly mfa_totp_pending?: PendingTotp | undefined;
  /** SHA-256 of each unused recovery code (a string set: spending one deletes its hash). */
  readonly mfa_recovery?: Set<string> | undefined;
}

/** The second-factor attributes of a stored user item. */
export function mfaOf(item: object | undefined): MfaAttributes {
  return (item ?? {}) as MfaAttributes;
}

/** Whether a stored user has a confirmed second factor. */
export function hasSecondFactor(item: object | undefined): boolean {
  return mfaOf(item).mfa_totp !== undefined;
}

/** The methods an `mfa_required` answer offers. */
export function methodsOf(item: object | undefined): string[] {
  const mfa = mfaOf(item);
  if (!mfa.mfa_totp) return [];
  return (mfa.mfa_recovery?.size ?? 0) > 0 ? ['totp', 'recovery_code'] : ['totp'];
}

/**
 * The `app` of the encryption context of TOTP secrets: no app slug can start with `~`, so the secret store never
 * makes this context, and the KMS grant of the auth group (infra/secrets-key.ts) names it beside `~social`.
 */
export const mfaContextApp = '~mfa';

/** The encryption context of one user's TOTP secret: a ciphertext moved to another user does not open. */
export function totpContext(userId: number): EncryptionContext {
  return { site: '~platform', app: mfaContextApp, key: `totp-user-${userId}` };
}
