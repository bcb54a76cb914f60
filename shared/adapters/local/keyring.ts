import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { contextBytes, type DataKey, type EncryptionContext, type Keys } from '../../keys/keys';

/** Loads the 256-bit master key kept at `path`, creating it (mode 0600) on first start. */
function loadOrCreate(path: string): Buffer {
  try {
    const key = readFileSync(path);
    if (key.length !== 32) throw new Error(`The master key at ${path} is not 32 bytes`);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const key = randomBytes(32);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, key, { mode: 0o600 });
    return key;
  }
}

const ivLength = 12;
const tagLength = 16;

/**
 * Local adapter of the Keys port: data keys wrapped with AES-256-GCM under a master key file, the encryption context
 * as additional authenticated data (as KMS binds it), so unwrapping under another context fails.
 */
export class LocalKeyring implements Keys {
  private key: Buffer | undefined;

  constructor(private readonly path: string) {}

  /** Read on first use, so functions that never touch secrets never touch the file. */
  private get master(): Buffer {
    this.key ??= loadOrCreate(this.path);
    return this.key;
  }

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const plaintext = randomBytes(32);
    const iv = randomBytes(ivLength);
    const cipher = createCipheriv('aes-256-gcm', this.master, iv);
    cipher.setAAD(contextBytes(context));
    const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { plaintext, encrypted: Buffer.concat([iv, cipher.getAuthTag(), wrapped]) };
  }

  async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
    const decipher = createDecipheriv('aes-256-gcm', this.master, encrypted.subarray(0, ivLength));
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(encrypted.subarray(ivLength, ivLength + tagLength));
    return Buffer.concat([decipher.update(encrypted.subarray(ivLength + tagLength)), decipher.final()]);
  }
}
