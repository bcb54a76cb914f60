import { join } from 'node:path';
import { KMSClient } from '@aws-sdk/client-kms';
import type { TokenSigner, VerificationKey } from '../auth/signer';
import { type Config, defaultLocalJwtKey } from '../config';
import { KmsSigner } from './aws/kms-signer';
import { LocalKeySigner } from './local/key-signer';

/** The keys of the platform's JWTs: the one that signs, and the others the JWKS publishes and tokens verify with. */
export interface JwtKeys {
  readonly signer: TokenSigner;
  readonly verificationKeys: readonly VerificationKey[];
}

/**
 * Chooses each configured key's adapter: `local:<name>` is the key pair in `keys/jwt-<name>.pem` under the data
 * directory (created on first use, so naming a new local key as a verification key creates it), any other id a
 * KMS asymmetric key (its public key read once per container). A `signer` given (tests) replaces the configured
 * signing key. Rotation: docs/deploying.md.
 */
export function jwtKeys(config: Config, signer?: TokenSigner): JwtKeys {
  let kms: KMSClient | undefined;
  const key = (id: string): TokenSigner => {
    if (id.startsWith('local:'))
      return new LocalKeySigner(join(config.dataDir, 'keys', `jwt-${id.slice('local:'.length)}.pem`));
    kms ??= new KMSClient({ region: config.region });
    return new KmsSigner(kms, id);
  };
  return {
    signer: signer ?? key(config.jwtSigningKeyId ?? defaultLocalJwtKey),
    verificationKeys: config.jwtVerificationKeyIds.map(key),
  };
}
