import type { JsonWebKey } from 'node:crypto';

/**
 * A key whose public half verifies the platform's JWTs and is published in the JWKS: the signing key, or during a
 * rotation the next key (published before it signs) or the previous one (kept until its tokens expire).
 */
export interface VerificationKey {
  /** The public key as a JWK with `kid`, `alg` and `use`. */
  publicJwk(): Promise<PublicJwk>;
}

/**
 * Port: the key that signs the platform's JWTs (ES256). Adapters: a local key pair under the data directory, and a
 * KMS asymmetric key in the cloud.
 */
export interface TokenSigner extends VerificationKey {
  /** Signs the JWS signing input; returns the raw (IEEE P1363, r||s) ECDSA signature. */
  sign(signingInput: Buffer): Promise<Buffer>;
}

export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: 'ES256';
  use: 'sig';
  kty: string;
}
