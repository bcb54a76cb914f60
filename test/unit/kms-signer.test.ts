import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { derToJose, KmsSigner } from '../../shared/adapters/aws/kms-signer';

const kms = mockClient(KMSClient);
// Test files share their worker's modules (vitest.config.ts): the class's `send` is put back after this file.
afterAll(() => kms.restore());
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keyArn = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';

afterEach(() => {
  kms.reset();
});

describe('KmsSigner', () => {
  it('signs with ECDSA_SHA_256 and returns the JOSE form of the signature', async () => {
    kms.on(SignCommand).callsFake((input) => ({
      Signature: sign('sha256', Buffer.from(input.Message), { key: privateKey, dsaEncoding: 'der' }),
      KeyId: keyArn,
    }));
    const signer = new KmsSigner(new KMSClient({ region: 'eu-west-1' }), keyArn);
    const input = Buffer.from('header.payload');
    const signature = await signer.sign(input);
    expect(signature).toHaveLength(64);
    expect(verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    expect(kms.commandCalls(SignCommand)[0]?.args[0].input).toMatchObject({
      KeyId: keyArn,
      MessageType: 'RAW',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
  });

  it('publishes the KMS public key as a JWK and asks KMS once', async () => {
    kms.on(GetPublicKeyCommand).resolves({
      KeyId: keyArn,
      PublicKey: publicKey.export({ format: 'der', type: 'spki' }),
    });
    const signer = new KmsSigner(new KMSClient({ region: 'eu-west-1' }), keyArn);
    const jwk = await signer.publicJwk();
    await signer.publicJwk();
    expect(jwk).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: '1234abcd-12ab-34cd-56ef-1234567890ab',
    });
    expect(createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'jwk' })).toMatchObject({
      x: jwk.x,
      y: jwk.y,
    });
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(1);
  });

  it('asks again after a failed public key lookup', async () => {
    kms
      .on(GetPublicKeyCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({
        KeyId: keyArn,
        PublicKey: publicKey.export({ format: 'der', type: 'spki' }),
      });
    const signer = new KmsSigner(new KMSClient({ region: 'eu-west-1' }), keyArn);
    await expect(signer.publicJwk()).rejects.toThrow('throttled');
    await expect(signer.publicJwk()).resolves.toMatchObject({ kty: 'EC' });
  });
});

describe('derToJose', () => {
  it('converts DER signatures whose integers carry a sign byte or are short', () => {
    for (let i = 0; i < 50; i++) {
      const data = Buffer.from(`message ${i}`);
      const der = sign('sha256', data, { key: privateKey, dsaEncoding: 'der' });
      const jose = derToJose(der);
      expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
    }
  });
});
