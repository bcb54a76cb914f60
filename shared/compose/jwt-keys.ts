import { join } from 'node:path';
import { kmsClientOnFirstUse, lazyKmsSigner } from '../adapters/aws/lazy-kms';
import { LocalKeySigner } from '../adapters/local/key-signer';
import type { TokenSigner, VerificationKey } from '../auth/signer';
import { type Config, defaultLocalJwtKey } from '../config';

/** The keys of the platform's JWTs: the one that signs, and the others the JWKS publishes and tokens verify with. */
export interface JwtKeys {
  readonly signer: TokenSigner;
  readonly verificationKeys: readonly VerificationKey[];
}

/**
 * Chooses each configured key's adapter: `local:<name>` is the key pair in `keys/jwt-<name>.pem` under the data
 * directory (created on first use, so naming a new local key as a verification key creates it), any other id a
 * KMS asymmetric key (its public key read once per container; the KMS client loads on first use). A `signer` given (tests) replaces the configured
 * signing key. Rotation: docs/deploying.md.
 */
export function jwtKeys(config: Config, signer?: TokenSigner): JwtKeys {
  const kms = kmsClientOnFirstUse(config.region);
  const key = (id: string): TokenSigner => {
    if (id.startsWith('local:'))
      return new LocalKeySigner(join(config.dataDir, 'keys', `jwt-${id.slice('local:'.length)}.pem`));
    return lazyKmsSigner(kms, id);
  };
  return {
    signer: signer ?? key(config.jwtSigningKeyId ?? defaultLocalJwtKey),
    verificationKeys: config.jwtVerificationKeyIds.map(key),
  };
}
