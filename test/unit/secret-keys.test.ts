import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KmsKeys } from '../../shared/adapters/aws/kms-keys';
import { kmsClientOnFirstUse, lazyKmsKeys } from '../../shared/adapters/aws/lazy-kms';
import { LocalKeyring } from '../../shared/adapters/local/keyring';
import { open, seal } from '../../shared/keys/envelope';
import type { EncryptionContext } from '../../shared/keys/keys';

const kms = mockClient(KMSClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => kms.restore());
const keyArn = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const dir = mkdtempSync(join(tmpdir(), 'keyring-'));
const context: EncryptionContext = { site: 'acme', app: 'shop', key: 'stripe' };

afterEach(() => {
  kms.reset();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for KMS: wraps data keys with one key and the context as AAD, as KMS binds it. */
function fakeKms() {
  const master = randomBytes(32);
  const aad = (map: Record<string, string> | undefined) => Buffer.from(JSON.stringify(map ?? {}));
  kms.on(GenerateDataKeyCommand).callsFake((input) => {
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', master, iv).setAAD(aad(input.EncryptionContext));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return {
      Plaintext: plaintext,
      CiphertextBlob: Buffer.concat([iv, cipher.getAuthTag(), body]),
      KeyId: keyArn,
    };
  });
  kms.on(DecryptCommand).callsFake((input) => {
    const blob = Buffer.from(input.CiphertextBlob);
    const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12)).setAAD(
      aad(input.EncryptionContext),
    );
    decipher.setAuthTag(blob.subarray(12, 28));
    return {
      Plaintext: Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]),
      KeyId: keyArn,
    };
  });
}

describe('KmsKeys', () => {
  it('asks for AES_256 data keys and decrypts them with the encryption context on both calls', async () => {
    fakeKms();
    const keys = new KmsKeys(new KMSClient({ region: 'eu-west-1' }), keyArn);
    const sealed = await seal(keys, { token: 'sk_live' }, context);
    expect(await open(keys, sealed, context)).toEqual({ token: 'sk_live' });
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]?.args[0].input).toEqual({
      KeyId: keyArn,
      KeySpec: 'AES_256',
      EncryptionContext: { site: 'acme', app: 'shop', key: 'stripe' },
    });
    expect(kms.commandCalls(DecryptCommand)[0]?.args[0].input).toMatchObject({
      KeyId: keyArn,
      EncryptionContext: { site: 'acme', app: 'shop', key: 'stripe' },
    });
  });

  it('works the same with its KMS client loaded on the first call (lazyKmsKeys)', async () => {
    fakeKms();
    const keys = lazyKmsKeys(kmsClientOnFirstUse('eu-west-1'), keyArn);
    expect(kms.commandCalls(GenerateDataKeyCommand)).toHaveLength(0);
    const sealed = await seal(keys, { token: 'sk_live' }, context);
    expect(await open(keys, sealed, context)).toEqual({ token: 'sk_live' });
    await expect(open(keys, sealed, { ...context, key: 'other' })).rejects.toThrow();
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]?.args[0].input.KeyId).toBe(keyArn);
  });

  it('fails to open a value sealed for another secret', async () => {
    fakeKms();
    const keys = new KmsKeys(new KMSClient({ region: 'eu-west-1' }), keyArn);
    const sealed = await seal(keys, { token: 'sk_live' }, context);
    await expect(open(keys, sealed, { ...context, key: 'other' })).rejects.toThrow();
  });
});

describe('LocalKeyring', () => {
  const path = join(dir, 'keys', 'secrets-master.key');

  it('keeps a 32-byte master key (mode 0600) and reuses it across instances', async () => {
    const first = new LocalKeyring(path);
    const sealed = await seal(first, { token: 'abc' }, context);
    expect(statSync(path).size).toBe(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await open(new LocalKeyring(path), sealed, context)).toEqual({ token: 'abc' });
    expect(sealed.ciphertext).not.toContain('abc');
  });

  it.each([
    ['site', { ...context, site: 'other' }],
    ['app', { ...context, app: '~' }],
    ['key', { ...context, key: 'paypal' }],
  ])('fails to open a value under another %s', async (_, other) => {
    const keys = new LocalKeyring(path);
    const sealed = await seal(keys, { token: 'abc' }, context);
    await expect(open(keys, sealed, other)).rejects.toThrow();
  });

  it('makes a fresh data key per write', async () => {
    const keys = new LocalKeyring(path);
    const one = await seal(keys, { token: 'same' }, context);
    const two = await seal(keys, { token: 'same' }, context);
    expect(one.encrypted_key).not.toBe(two.encrypted_key);
    expect(one.ciphertext).not.toBe(two.ciphertext);
  });
});
