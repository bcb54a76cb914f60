/**
 * The Keys port: data keys for envelope encryption (docs/secrets.md, "Encryption"). The cloud adapter asks KMS
 * (`GenerateDataKey`, `Decrypt`); the local adapter wraps data keys with a master key kept under the data directory.
 * Every call carries an encryption context, so a wrapped data key only unwraps for the secret it was made for.
 */

/** Where a value belongs: its site, its app (`~` for site level) and its key. */
export interface EncryptionContext {
  readonly site: string;
  readonly app: string;
  readonly key: string;
}

/** A fresh AES-256 data key: the plaintext for this write only, and its wrapped form to store. */
export interface DataKey {
  readonly plaintext: Buffer;
  readonly encrypted: Buffer;
}

export interface Keys {
  /** A new 256-bit data key bound to the context. */
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  /** Unwraps a stored data key; fails when the context differs from the one it was made with. */
  decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer>;
}

/** The context as KMS takes it (string map). */
export function contextMap(context: EncryptionContext): Record<string, string> {
  return { site: context.site, app: context.app, key: context.key };
}

/** The context as additional authenticated data: a canonical byte string. */
export function contextBytes(context: EncryptionContext): Buffer {
  return Buffer.from(JSON.stringify([context.site, context.app, context.key]), 'utf8');
}

const notConfigured = async (): Promise<never> => {
  throw new Error('The secret store has no key: set SECRETS_KEY_ID');
};

/** The Keys of a cloud function that was given no key: any use is a deployment error. */
export const unconfiguredKeys: Keys = { generateDataKey: notConfigured, decryptDataKey: notConfigured };
