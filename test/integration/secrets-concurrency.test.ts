import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalKeyring } from '../../shared/adapters/local/keyring';
import type { EncryptionContext, Keys } from '../../shared/keys/keys';
import type { ApiClient } from '../support/client';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant } from '../support/tenant';

/**
 * The local keyring with a seam: `meanwhile` runs inside the next data-key request, that is after a write has read
 * the secret and before it commits. A concurrent write that lands there is a lost race, every time: no timing.
 */
class InterleavingKeys implements Keys {
  meanwhile: (() => Promise<void>) | undefined;
  constructor(private readonly inner: Keys) {}
  async generateDataKey(context: EncryptionContext) {
    const step = this.meanwhile;
    this.meanwhile = undefined;
    if (step) await step();
    return this.inner.generateDataKey(context);
  }
  decryptDataKey(encrypted: Buffer, context: EncryptionContext) {
    return this.inner.decryptDataKey(encrypted, context);
  }
}

const dir = `/tmp/secrets-race-${randomBytes(4).toString('hex')}`;
const keys = new InterleavingKeys(new LocalKeyring(`${dir}/master.key`));

let platform: TestPlatform;
let owner: ApiClient;

beforeAll(async () => {
  platform = await startTestPlatform({}, { keys }, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  owner = (await createTenant(platform)).owner;
  await owner.post('/api/secret-types/', { name: 'Token', sensitivity_level: 'private' });
  const created = await owner.post('/api/secrets/', {
    secret_type: 'token',
    key: 'stripe',
    value: { token: 'first' },
  });
  expect(created.status).toBe(201);
});

describe('concurrent writes of one secret', () => {
  it('two PUTs that read the same version: one 200, the other 409 in the secrets envelope', async () => {
    let inner: Awaited<ReturnType<ApiClient['put']>> | undefined;
    keys.meanwhile = async () => {
      inner = await owner.put('/api/secrets/stripe/', { secret_type: 'token', value: { token: 'second' } });
    };
    const outer = await owner.put('/api/secrets/stripe/', {
      secret_type: 'token',
      value: { token: 'third' },
    });
    expect(inner?.status).toBe(200);
    expect(outer.status).toBe(409);
    expect(outer.body).toEqual({
      error: 'Conflict',
      detail: 'The secret "stripe" changed meanwhile: read it again and retry.',
    });
    // The winner's value stands; the loser changed nothing.
    expect((await owner.get('/api/secrets/stripe/')).body.value).toEqual({ token: 'second' });
    const history = await owner.get('/api/secrets/stripe/history/');
    expect(history.body.results.map((record: { action: string }) => record.action)).toEqual(['~', '+']);
  });

  it('a PUT that loses to a DELETE answers 404, not a validation error', async () => {
    let deleted: number | undefined;
    keys.meanwhile = async () => {
      deleted = (await owner.delete('/api/secrets/stripe/')).status;
    };
    const put = await owner.put('/api/secrets/stripe/', { secret_type: 'token', value: { token: 'late' } });
    expect(deleted).toBe(200);
    expect(put.status).toBe(404);
    expect(put.body.error).toBe('Secret not found');
  });
});
