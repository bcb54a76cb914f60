import type { KMSClient } from '@aws-sdk/client-kms';
import type { TokenSigner } from '../../auth/signer';
import type { Keys } from '../../keys/keys';
import { onFirstUse } from '../../lazy';

/**
 * The KMS adapters with the SDK's KMS client (about 28 KiB minified) loaded on their first call rather than at
 * cold start: a function that verifies tokens reads each key's public key once per container, and only the secrets
 * function unwraps data keys.
 */

/** One KMS client for a region, made on first use. */
export function kmsClientOnFirstUse(region: string): () => Promise<KMSClient> {
  return onFirstUse(async () => new (await import('@aws-sdk/client-kms')).KMSClient({ region }));
}

/** A KMS asymmetric key as the token signer (shared/adapters/aws/kms-signer.ts), loaded on first use. */
export function lazyKmsSigner(kms: () => Promise<KMSClient>, keyId: string): TokenSigner {
  const signer = onFirstUse(async () => new (await import('./kms-signer')).KmsSigner(await kms(), keyId));
  return {
    sign: async (signingInput) => (await signer()).sign(signingInput),
    publicJwk: async () => (await signer()).publicJwk(),
  };
}

/** A KMS symmetric key as the secret store's Keys (shared/adapters/aws/kms-keys.ts), loaded on first use. */
export function lazyKmsKeys(kms: () => Promise<KMSClient>, keyId: string): Keys {
  const keys = onFirstUse(async () => new (await import('./kms-keys')).KmsKeys(await kms(), keyId));
  return {
    generateDataKey: async (context) => (await keys()).generateDataKey(context),
    decryptDataKey: async (encrypted, context) => (await keys()).decryptDataKey(encrypted, context),
  };
}
