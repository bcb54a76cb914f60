import { createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalKeySigner } from '../../shared/adapters/local/key-signer';
import type { TokenSigner } from '../../shared/auth/signer';
import { lowS, TokenService } from '../../shared/auth/tokens';
import { jwtKeys } from '../../shared/compose/jwt-keys';
import { loadConfig } from '../../shared/config';
import { AuthenticationError } from '../../shared/errors';

/**
 * Signing key rotation (docs/deploying.md): the JWKS publishes the signing key and the other verification keys
 * with distinct `kid`s, tokens signed by any of them verify, new tokens carry the signing key's `kid`, and a token
 * whose `kid` none of them has is refused.
 */

const settings = {
  issuer: 'https://issuer.test',
  audience: 'platform-api',
  accessSeconds: 60,
  refreshSeconds: 600,
};
const user = { id: 42, username: 'ada' };
const clock = () => new Date();
const dir = mkdtempSync(join(tmpdir(), 'rotation-'));
const current = new LocalKeySigner(join(dir, 'current.pem'));
const next = new LocalKeySigner(join(dir, 'next.pem'));
const stranger = new LocalKeySigner(join(dir, 'stranger.pem'));

const kidOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).kid as string;

/** A token of the issued shape signed by `signer`, with `kid` in its header. */
async function signedBy(signer: TokenSigner, kid: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const payload = {
    iss: settings.issuer,
    aud: settings.audience,
    sub: '42',
    username: 'ada',
    token_type: 'access',
  };
  const input = `${encode({ alg: 'ES256', typ: 'JWT', kid })}.${encode({ ...payload, jti: 'j', iat: now, exp: now + 60 })}`;
  return `${input}.${lowS(await signer.sign(Buffer.from(input))).toString('base64url')}`;
}

describe('TokenService with a next key published before the switch', () => {
  const before = new TokenService(current, settings, clock, [next]);
  const after = new TokenService(next, settings, clock, [current]);

  it('publishes both keys, the signing key first, with distinct kids', async () => {
    const { keys } = await before.jwks();
    const kids = keys.map((key) => key.kid);
    expect(kids).toEqual([(await current.publicJwk()).kid, (await next.publicJwk()).kid]);
    expect(new Set(kids).size).toBe(2);
    for (const key of keys) expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect((await after.jwks()).keys.map((key) => key.kid)).toEqual([...kids].reverse());
  });

  it('signs with the signing key only: new tokens carry its kid', async () => {
    expect(kidOf(await before.issue(user, 'access'))).toBe((await current.publicJwk()).kid);
    expect(kidOf(await after.issue(user, 'access'))).toBe((await next.publicJwk()).kid);
  });

  it('verifies tokens of either key on both sides of the switch', async () => {
    const old = await before.issue(user, 'refresh');
    const fresh = await after.issue(user, 'refresh');
    for (const service of [before, after]) {
      await expect(service.verify(old, 'refresh')).resolves.toMatchObject({ userId: 42 });
      await expect(service.verify(fresh, 'refresh')).resolves.toMatchObject({ userId: 42 });
    }
  });

  it('refuses the old key once it is removed', async () => {
    const old = await before.issue(user, 'access');
    const done = new TokenService(next, settings, clock);
    expect((await done.jwks()).keys).toHaveLength(1);
    await expect(done.verify(old, 'access')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('refuses a token whose kid no published key has, and one signed by another key under a known kid', async () => {
    const unknown = await signedBy(stranger, (await stranger.publicJwk()).kid);
    await expect(before.verify(unknown, 'access')).rejects.toBeInstanceOf(AuthenticationError);
    const borrowed = await signedBy(stranger, (await next.publicJwk()).kid);
    await expect(before.verify(borrowed, 'access')).rejects.toBeInstanceOf(AuthenticationError);
    // The baseline: the same construction with a published key and its own kid verifies.
    const genuine = await signedBy(next, (await next.publicJwk()).kid);
    await expect(before.verify(genuine, 'access')).resolves.toMatchObject({ userId: 42 });
  });

  it('publishes a key listed twice once', async () => {
    const twice = new TokenService(current, settings, clock, [next, current, next]);
    expect((await twice.jwks()).keys).toHaveLength(2);
  });
});

describe('JWT key configuration', () => {
  it('reads the signing key and the comma-separated verification keys, each once', () => {
    const config = loadConfig({
      PLATFORM_RUNTIME: 'aws',
      TABLE_NAME: 't',
      JWT_SIGNING_KEY_ID: 'arn:aws:kms:eu-west-1:111122223333:key/new',
      JWT_VERIFICATION_KEY_IDS:
        ' arn:aws:kms:eu-west-1:111122223333:key/old ,,arn:aws:kms:eu-west-1:111122223333:key/new,arn:aws:kms:eu-west-1:111122223333:key/old',
    });
    expect(config.jwtSigningKeyId).toBe('arn:aws:kms:eu-west-1:111122223333:key/new');
    expect(config.jwtVerificationKeyIds).toEqual(['arn:aws:kms:eu-west-1:111122223333:key/old']);
    expect(loadConfig({}).jwtVerificationKeyIds).toEqual([]);
  });

  it('takes local keys locally only, with plain names', () => {
    expect(
      loadConfig({ JWT_VERIFICATION_KEY_IDS: 'local:next,local:signing-key' }).jwtVerificationKeyIds,
    ).toEqual(['local:next']);
    expect(() => loadConfig({ JWT_SIGNING_KEY_ID: 'local:../../etc' })).toThrow(
      'JWT_SIGNING_KEY_ID: a local key',
    );
    expect(() =>
      loadConfig({
        PLATFORM_RUNTIME: 'aws',
        TABLE_NAME: 't',
        JWT_SIGNING_KEY_ID: 'k',
        JWT_VERIFICATION_KEY_IDS: 'local:a',
      }),
    ).toThrow('JWT_VERIFICATION_KEY_IDS: local keys ("local:a") are for the local runtime only');
  });

  it('maps local keys to key files under the data directory, the default one included', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'jwt-keys-'));
    const keys = jwtKeys(
      loadConfig({
        DATA_DIR: dataDir,
        JWT_SIGNING_KEY_ID: 'local:next',
        JWT_VERIFICATION_KEY_IDS: 'local:signing-key',
      }),
    );
    expect(keys.signer).toBeInstanceOf(LocalKeySigner);
    expect(existsSync(join(dataDir, 'keys', 'jwt-next.pem'))).toBe(true);
    // The previous default key (no JWT_SIGNING_KEY_ID) is the file the local runtime always used.
    const before = jwtKeys(loadConfig({ DATA_DIR: dataDir }));
    expect(await keys.verificationKeys[0]?.publicJwk()).toEqual(await before.signer.publicJwk());
    expect(existsSync(join(dataDir, 'keys', 'jwt-signing-key.pem'))).toBe(true);
  });

  it('uses a given signer over the configured one', () => {
    const config = loadConfig({ JWT_SIGNING_KEY_ID: 'key-a', JWT_VERIFICATION_KEY_IDS: 'key-b' });
    expect(jwtKeys(config, current).signer).toBe(current);
  });
});

describe('KMS keys during a rotation', () => {
  const kms = mockClient(KMSClient);
  // Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
  afterAll(() => kms.restore());
  const arn = (id: string) => `arn:aws:kms:eu-west-1:111122223333:key/${id}`;
  const pairs: Record<string, { privateKey: KeyObject; publicKey: KeyObject }> = {
    'key-old': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    'key-new': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  };
  const pairOf = (keyId: string | undefined) => {
    const pair = pairs[(keyId ?? '').split('/').pop() ?? ''];
    if (!pair) throw new Error(`NotFoundException: ${keyId}`);
    return pair;
  };

  afterEach(() => {
    kms.reset();
  });

  function mockKms() {
    kms.on(GetPublicKeyCommand).callsFake(async (input: { KeyId?: string }) => ({
      KeyId: arn((input.KeyId ?? '').split('/').pop() ?? ''),
      PublicKey: pairOf(input.KeyId).publicKey.export({ format: 'der', type: 'spki' }),
    }));
    kms.on(SignCommand).callsFake(async (input: { KeyId?: string; Message: Uint8Array }) => ({
      KeyId: input.KeyId,
      Signature: sign('sha256', Buffer.from(input.Message), {
        key: pairOf(input.KeyId).privateKey,
        dsaEncoding: 'der',
      }),
    }));
  }

  const service = (signing: string, verifying: string) => {
    const { signer, verificationKeys } = jwtKeys(
      loadConfig({
        PLATFORM_RUNTIME: 'aws',
        TABLE_NAME: 't',
        JWT_SIGNING_KEY_ID: signing,
        JWT_VERIFICATION_KEY_IDS: verifying,
      }),
    );
    return new TokenService(signer, settings, clock, verificationKeys);
  };

  it('uses KMS for any other key id, its client loaded on the first use of a key', async () => {
    mockKms();
    const keys = jwtKeys(
      loadConfig({ JWT_SIGNING_KEY_ID: arn('key-old'), JWT_VERIFICATION_KEY_IDS: arn('key-new') }),
    );
    expect(keys.signer).not.toBeInstanceOf(LocalKeySigner);
    expect(keys.verificationKeys).toHaveLength(1);
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(0);
    expect((await keys.verificationKeys[0]?.publicJwk())?.kid).toBe('key-new');
    expect((await keys.signer.publicJwk()).kid).toBe('key-old');
    expect(kms.commandCalls(GetPublicKeyCommand).map((call) => call.args[0].input.KeyId)).toEqual([
      arn('key-new'),
      arn('key-old'),
    ]);
  });

  it('publishes both KMS keys with their key ids as kids, signs with the current one only', async () => {
    mockKms();
    const before = service(arn('key-old'), arn('key-new'));
    const { keys } = await before.jwks();
    expect(keys.map((key) => key.kid)).toEqual(['key-old', 'key-new']);
    for (const key of keys) {
      const expected = pairOf(key.kid).publicKey.export({ format: 'jwk' });
      expect(createPublicKey({ key, format: 'jwk' }).export({ format: 'jwk' })).toEqual(expected);
    }
    const token = await before.issue(user, 'access');
    expect(kidOf(token)).toBe('key-old');
    expect(kms.commandCalls(SignCommand).map((call) => call.args[0].input.KeyId)).toEqual([arn('key-old')]);
    expect(
      kms
        .commandCalls(GetPublicKeyCommand)
        .map((call) => call.args[0].input.KeyId)
        .sort(),
    ).toEqual([arn('key-new'), arn('key-old')]);
  });

  it('verifies tokens of the old key after the switch, and signs new ones with the new key', async () => {
    mockKms();
    const old = await service(arn('key-old'), arn('key-new')).issue(user, 'refresh');
    const after = service(arn('key-new'), arn('key-old'));
    await expect(after.verify(old, 'refresh')).resolves.toMatchObject({ userId: 42 });
    const fresh = await after.issue(user, 'refresh');
    expect(kidOf(fresh)).toBe('key-new');
    await expect(after.verify(fresh, 'refresh')).resolves.toMatchObject({ userId: 42 });
    expect(kms.commandCalls(SignCommand).at(-1)?.args[0].input.KeyId).toBe(arn('key-new'));
  });

  it('refuses a token of a key that is no longer published', async () => {
    mockKms();
    const old = await service(arn('key-old'), '').issue(user, 'access');
    const done = service(arn('key-new'), '');
    await expect(done.verify(old, 'access')).rejects.toBeInstanceOf(AuthenticationError);
  });
});
