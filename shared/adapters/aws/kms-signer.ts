import { createPublicKey } from 'node:crypto';
import { GetPublicKeyCommand, type KMSClient, SignCommand } from '@aws-sdk/client-kms';
import type { PublicJwk, TokenSigner } from '../../auth/signer';

/** Converts a DER-encoded ECDSA signature (what KMS returns) to the raw r||s form JWS uses. */
export function derToJose(der: Uint8Array, size = 32): Buffer {
  const buf = Buffer.from(der);
  let offset = 2;
  if (buf[1] !== undefined && buf[1] & 0x80) offset += buf[1] & 0x7f;
  const read = (): Buffer => {
    if (buf[offset] !== 0x02) throw new Error('Malformed DER signature');
    const length = buf[offset + 1] ?? 0;
    let value = buf.subarray(offset + 2, offset + 2 + length);
    offset += 2 + length;
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    const out = Buffer.alloc(size);
    value.copy(out, size - value.length);
    return out;
  };
  const r = read();
  const s = read();
  return Buffer.concat([r, s]);
}

/** Cloud adapter of the signing port: a KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY). */
export class KmsSigner implements TokenSigner {
  private jwk: Promise<PublicJwk> | undefined;

  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async sign(signingInput: Buffer): Promise<Buffer> {
    const result = await this.kms.send(
      new SignCommand({
        KeyId: this.keyId,
        Message: signingInput,
        MessageType: 'RAW',
        SigningAlgorithm: 'ECDSA_SHA_256',
      }),
    );
    if (!result.Signature) throw new Error('KMS returned no signature');
    return derToJose(result.Signature);
  }

  publicJwk(): Promise<PublicJwk> {
    this.jwk ??= this.kms.send(new GetPublicKeyCommand({ KeyId: this.keyId })).then((result) => {
      if (!result.PublicKey) throw new Error('KMS returned no public key');
      const jwk = createPublicKey({ key: Buffer.from(result.PublicKey), format: 'der', type: 'spki' }).export(
        {
          format: 'jwk',
        },
      );
      const kid = (result.KeyId ?? this.keyId).split('/').pop() ?? this.keyId;
      return { ...jwk, kty: 'EC', kid, alg: 'ES256', use: 'sig' } as PublicJwk;
    });
    // A failed lookup is retried on the next request instead of being cached for the container's life.
    this.jwk.catch(() => {
      this.jwk = undefined;
    });
    return this.jwk;
  }
}
