import { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { GroupNeeds } from '../shared/api/group';

/** A function's share of the key's encryption contexts. */
export type SecretsKeyShare = NonNullable<GroupNeeds['secretsKey']>;

/** The names of the secret store's encryption context (shared/keys/keys.ts). */
const contextKeys = ['site', 'app', 'key'];

/**
 * The secret store's symmetric KMS key (envelope encryption, docs/secrets.md), rotated yearly by KMS. Only the
 * functions given it may make and unwrap data keys, and only with the store's encryption context.
 */
export function createSecretsKey(scope: Construct, protect: boolean): Key {
  return new Key(scope, 'SecretsKey', {
    description: 'Wraps the data keys of the secret store',
    enableKeyRotation: true,
    removalPolicy: protect ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

/**
 * The `app` of the encryption context of social apps' client secrets (shared/social/apps.ts, `secretContext`): no
 * app slug can be `~social`, so the secret store never makes a context with it.
 */
export const socialContextApp = '~social';

/** The `app` of the webhook endpoints' signing secrets (shared/webhooks/endpoints.ts, `keyContext`). */
export const webhooksContextApp = '~webhooks';

/** The `app` of the encryption context of users' TOTP secrets (shared/mfa/model.ts, `totpContext`), the auth group's too. */
export const mfaContextApp = '~mfa';

/** The contexts of the auth group's share: social apps' client secrets and TOTP secrets. */
const authContextApps = [socialContextApp, mfaContextApp];

/**
 * Lets a function call GenerateDataKey and Decrypt on the key, for requests carrying the full context only, and
 * only its own share of the contexts, as its manifest names it (`needs.secretsKey`): `social` the social apps'
 * and TOTP secrets (`app` = `~social` or `~mfa`, the auth group), `webhooks` the webhook endpoints' signing secrets
 * (`app` = `~webhooks`, the events group), `store` every other (the secret store). So no function can unwrap another's
 * other's data keys, even though they share the key.
 */
export function grantSecretsKey(key: Key, fn: IFunction, share: SecretsKeyShare): void {
  const own =
    share === 'social'
      ? { StringEquals: { 'kms:EncryptionContext:app': authContextApps } }
      : share === 'webhooks'
        ? { StringEquals: { 'kms:EncryptionContext:app': webhooksContextApp } }
        : { StringNotEquals: { 'kms:EncryptionContext:app': [...authContextApps, webhooksContextApp] } };
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': contextKeys },
        Null: Object.fromEntries(contextKeys.map((name) => [`kms:EncryptionContext:${name}`, 'false'])),
        ...own,
      },
    }),
  );
}
