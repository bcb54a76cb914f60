import type { JsonWebKey } from 'node:crypto';

/**
 * Port: the key that signs the platform's JWTs (ES256). Adapters: a local key pair under the data directory, and a
 * KMS asymmetric key in the cloud.
 */
export interface TokenSigner {
  /** Signs the JWS signing input; returns the raw (IEEE P1363, r||s) ECDSA signature. */
  sign(signingInput: Buffer): Promise<Buffer>;
  /** The public key as a JWK with `kid`, `alg` and `use`. */
  publicJwk(): Promise<PublicJwk>;
}

export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: 'ES256';
  use: 'sig';
  kty: string;
}
