import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalKeyring } from '../../shared/adapters/local/keyring';
import type { EncryptionContext, Keys } from '../../shared/keys/keys';
import { secretKeys } from '../../shared/secrets/keys';
import { updateSecret } from '../../shared/secrets/secrets';
import { ValueCache } from '../../shared/secrets/value-cache';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant } from '../support/tenant';

/** The local keyring, counting the data-key unwraps (what would be KMS `Decrypt` calls in the cloud). */
class CountingKeys implements Keys {
  decrypts = 0;
  constructor(private readonly inner: Keys) {}
  generateDataKey(context: EncryptionContext) {
    return this.inner.generateDataKey(context);
  }
  decryptDataKey(encrypted: Buffer, context: EncryptionContext) {
    this.decrypts += 1;
    return this.inner.decryptDataKey(encrypted, context);
  }
}

let offset = 0;
const clock = () => new Date(Date.now() + offset);
const dir = `/tmp/secrets-keyring-${randomBytes(4).toString('hex')}`;
const keys = new CountingKeys(new LocalKeyring(`${dir}/master.key`));

let platform: TestPlatform;
let tenant: Tenant;
let owner: ApiClient;

beforeAll(async () => {
  platform = await startTestPlatform({}, { keys, clock }, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  offset = 0;
  tenant = await createTenant(platform);
  owner = tenant.owner;
  await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
  await owner.post('/api/secret-types/', { name: 'Flags', sensitivity_level: 'public' });
});

const site = () => tenant.site.slug;
const storedItem = async (app: string | null, key: string) =>
  (
    await platform.deps.store.doc.send(
      new GetCommand({ TableName: platform.deps.store.table, Key: secretKeys.secret(site(), app, key) }),
    )
  ).Item as Record<string, unknown>;

describe('storage', () => {
  it('keeps private values encrypted with their wrapped data key, public values in plaintext', async () => {
    const marker = `m-${randomBytes(6).toString('hex')}`;
    await owner.post('/api/secrets/', { secret_type: 'token', key: 'p', value: { v: marker } });
    await owner.post('/api/secrets/', { secret_type: 'flags', key: 'f', value: { v: marker } });
    const sealed = await storedItem(null, 'p');
    expect(sealed.value).toBeUndefined();
    expect(typeof sealed.ciphertext).toBe('string');
    expect(typeof sealed.encrypted_key).toBe('string');
    expect(JSON.stringify(sealed)).not.toContain(marker);
    expect((await storedItem(null, 'f')).value).toEqual({ v: marker });
  });

  it('binds each ciphertext to its site, app and key: moved to another secret, it does not decrypt', async () => {
    await owner.post('/api/secrets/', { secret_type: 'token', key: 'source', value: { v: 'source-value' } });
    await owner.post('/api/secrets/', {
      secret_type: 'token',
      key: 'source',
      value: { v: 'other' },
      app: tenant.app.slug,
    });
    await owner.post('/api/secrets/', { secret_type: 'token', key: 'target', value: { v: 'target-value' } });
    const source = await storedItem(null, 'source');
    for (const [app, key] of [
      [null, 'target'],
      [tenant.app.slug, 'source'],
    ] as const) {
      await platform.deps.store.doc.send(
        new UpdateCommand({
          TableName: platform.deps.store.table,
          Key: secretKeys.secret(site(), app, key),
          UpdateExpression: 'SET ciphertext = :c, encrypted_key = :k, revision = :r',
          ExpressionAttributeValues: {
            ':c': source.ciphertext,
            ':k': source.encrypted_key,
            ':r': randomUUID(),
          },
        }),
      );
      const query = app === null ? '' : `?app=${app}`;
      const response = await owner.get(`/api/secrets/${key}/${query}`);
      expect(response.status).toBe(500);
      expect(response.text).not.toContain('source-value');
    }
    expect((await owner.get('/api/secrets/source/')).body.value).toEqual({ v: 'source-value' });
  });
});

describe('value cache', () => {
  beforeEach(async () => {
    await owner.post('/api/secrets/', { secret_type: 'token', key: 'api', value: { v: 'one' } });
  });

  it('makes no KMS call while the item revision is unchanged', async () => {
    const before = keys.decrypts;
    expect((await owner.get('/api/secrets/api/')).body.value).toEqual({ v: 'one' });
    expect(keys.decrypts).toBe(before + 1);
    for (let i = 0; i < 3; i++)
      expect((await owner.get('/api/secrets/api/')).body.value).toEqual({ v: 'one' });
    await owner.get('/api/secrets/');
    expect(keys.decrypts).toBe(before + 1);
  });

  it("sees another container's update at once (a new revision), and decrypts again", async () => {
    await owner.get('/api/secrets/api/');
    const before = keys.decrypts;
    // Another container: the same table and keys, its own cache.
    const elsewhere = { ...platform.deps, secretCache: new ValueCache(clock) };
    await updateSecret(
      elsewhere,
      site(),
      'someone',
      { key: 'api', app: null },
      {
        secret_type: 'token',
        value: { v: 'two' },
      },
    );
    expect((await owner.get('/api/secrets/api/')).body.value).toEqual({ v: 'two' });
    expect(keys.decrypts).toBe(before + 1);
  });

  it('keeps a private value 5 minutes at most', async () => {
    await owner.get('/api/secrets/api/');
    const before = keys.decrypts;
    offset = 4 * 60_000;
    await owner.get('/api/secrets/api/');
    expect(keys.decrypts).toBe(before);
    offset = 5 * 60_000 + 1000;
    await owner.get('/api/secrets/api/');
    expect(keys.decrypts).toBe(before + 1);
  });
});
