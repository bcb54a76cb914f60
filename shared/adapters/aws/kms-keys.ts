import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import { contextMap, type DataKey, type EncryptionContext, type Keys } from '../../keys/keys';

/** Cloud adapter of the Keys port: AES-256 data keys from a symmetric KMS key, bound to the encryption context. */
export class KmsKeys implements Keys {
  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const result = await this.kms.send(
      new GenerateDataKeyCommand({
        KeyId: this.keyId,
        KeySpec: 'AES_256',
        EncryptionContext: contextMap(context),
      }),
    );
    if (!result.Plaintext || !result.CiphertextBlob) throw new Error('KMS returned no data key');
    return { plaintext: Buffer.from(result.Plaintext), encrypted: Buffer.from(result.CiphertextBlob) };
  }

  async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
    const result = await this.kms.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: encrypted,
        EncryptionContext: contextMap(context),
      }),
    );
    if (!result.Plaintext) throw new Error('KMS returned no plaintext');
    return Buffer.from(result.Plaintext);
  }
}
