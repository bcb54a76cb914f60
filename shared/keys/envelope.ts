import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { contextBytes, type EncryptionContext, type Keys } from './keys';

/**
 * The stored form of an encrypted value: AES-256-GCM under a fresh data key, the data key wrapped by the Keys port
 * beside it. The encryption context is also the cipher's additional authenticated data, so moving a ciphertext to
 * another secret fails twice over.
 */
export interface Sealed {
  /** base64 of iv (12 bytes) | tag (16 bytes) | ciphertext. */
  readonly ciphertext: string;
  /** base64 of the wrapped data key. */
  readonly encrypted_key: string;
}

const ivLength = 12;
const tagLength = 16;

/** Encrypts a JSON value for the context with a data key made for this write. */
export async function seal(keys: Keys, value: unknown, context: EncryptionContext): Promise<Sealed> {
  const dataKey = await keys.generateDataKey(context);
  try {
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv);
    cipher.setAAD(contextBytes(context));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return {
      ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
      encrypted_key: dataKey.encrypted.toString('base64'),
    };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

/** Decrypts a sealed value; throws when it was sealed for another context or was altered. */
export async function open(keys: Keys, sealed: Sealed, context: EncryptionContext): Promise<unknown> {
  const dataKey = await keys.decryptDataKey(Buffer.from(sealed.encrypted_key, 'base64'), context);
  try {
    const bytes = Buffer.from(sealed.ciphertext, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', dataKey, bytes.subarray(0, ivLength));
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(bytes.subarray(ivLength, ivLength + tagLength));
    const text = Buffer.concat([decipher.update(bytes.subarray(ivLength + tagLength)), decipher.final()]);
    return JSON.parse(text.toString('utf8'));
  } finally {
    dataKey.fill(0);
  }
}
