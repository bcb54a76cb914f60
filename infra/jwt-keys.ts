import { RemovalPolicy, type Stack } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';

/**
 * The JWT signing keys by generation (1, 2, ...). Asymmetric KMS keys do not rotate automatically, so a rotation
 * is three deployments (docs/deploying.md): publish the next generation beside the current one, switch signing to
 * it, and drop the old one once its tokens have expired.
 */
export interface JwtKeySettings {
  /** The generation that signs tokens (default 1). */
  readonly signing: number;
  /**
   * Other generations the JWKS publishes and tokens verify with: the next one before the switch, the previous one
   * after it.
   */
  readonly verification: readonly number[];
}

export const defaultJwtKeys: JwtKeySettings = { signing: 1, verification: [] };

/** The keys of the settings, created in the stack's own scope so that generation 1 keeps its logical id. */
export class JwtKeys {
  readonly signing: Key;
  readonly verification: readonly Key[];

  constructor(stack: Stack, settings: JwtKeySettings, protect: boolean) {
    const generations = [settings.signing, ...settings.verification];
    for (const generation of generations) {
      if (!Number.isInteger(generation) || generation < 1)
        throw new Error(`JWT key generation ${generation}: a positive integer`);
    }
    const key = (generation: number) =>
      // Generation 1 is the key of every stack from before rotations: the same id, so it is not replaced.
      new Key(stack, generation === 1 ? 'JwtSigningKey' : `JwtSigningKey${generation}`, {
        description:
          generation === 1
            ? 'Signs the platform JWTs (ES256)'
            : `Signs the platform JWTs (ES256), key ${generation}`,
        keySpec: KeySpec.ECC_NIST_P256,
        keyUsage: KeyUsage.SIGN_VERIFY,
        removalPolicy: protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
    this.signing = key(settings.signing);
    const others = [...new Set(settings.verification)].filter(
      (generation) => generation !== settings.signing,
    );
    this.verification = others.map(key);
  }

  /** JWT_SIGNING_KEY_ID, and JWT_VERIFICATION_KEY_IDS when other keys are published (shared/config.ts). */
  environment(): Record<string, string> {
    return {
      JWT_SIGNING_KEY_ID: this.signing.keyArn,
      ...(this.verification.length > 0
        ? { JWT_VERIFICATION_KEY_IDS: this.verification.map((key) => key.keyArn).join(',') }
        : {}),
    };
  }

  /** Every function reads each key's public half (to verify); only a signer may sign, with the signing key only. */
  grant(fn: IGrantable, signs: boolean): void {
    for (const key of [this.signing, ...this.verification]) key.grant(fn, 'kms:GetPublicKey');
    if (signs) this.signing.grant(fn, 'kms:Sign');
  }
}
