import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registry } from '../../functions/registry';
import { LocalKeySigner } from '../../shared/adapters/local/key-signer';
import { lowS } from '../../shared/auth/tokens';
import { loadConfig } from '../../shared/config';
import { type LocalPlatform, startLocalPlatform } from '../../shared/host/local/runtime';
import { ApiClient } from '../support/client';
import { adminPassword, databaseEnv, privateDatabase } from '../support/platform';

/**
 * A signing key rotation through HTTP, with two local keys and the same data (table and key files) across three
 * deployments: the next key published beside the current one, the switch, and the old key's removal.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'jwt-rotation-'));
const shared = { DATA_DIR: dataDir, TABLE_NAME: `test-${randomBytes(6).toString('hex')}` };
/** Before the switch: the default key signs, the next one is published. */
const publish = { ...shared, JWT_VERIFICATION_KEY_IDS: 'local:next' };
/** After it: the next key signs, the previous default key still verifies. */
const switched = {
  ...shared,
  JWT_SIGNING_KEY_ID: 'local:next',
  JWT_VERIFICATION_KEY_IDS: 'local:signing-key',
};
/** Once the old tokens have expired: the next key alone. */
const retired = { ...shared, JWT_SIGNING_KEY_ID: 'local:next' };

interface Deployment {
  api: ApiClient;
  stop(): Promise<void>;
}

/**
 * One deployment of the platform on the shared table and key files (startTestPlatform makes its own table), with
 * its own PostgreSQL: the test template's PGlite, or a private database on DATABASE_URL.
 */
async function deploy(env: Record<string, string>): Promise<Deployment> {
  const url = inject('databaseUrl');
  const database = url ? await privateDatabase(url) : undefined;
  const template = inject('pgliteTemplate');
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: adminPassword,
    ...databaseEnv(database?.url),
    ...env,
  });
  const platform: LocalPlatform = await startLocalPlatform(config, registry, {
    persist: false,
    postgresProcess: 'in-process',
    ...(template ? { postgresTemplate: template } : {}),
  });
  return {
    api: new ApiClient(platform.baseUrl),
    stop: async () => {
      await platform.stop();
      await database?.drop();
    },
  };
}

let before: Deployment;
let after: Deployment;
let kids: { current: string; next: string };

beforeAll(async () => {
  before = await deploy(publish);
  after = await deploy(switched);
  kids = {
    current: (await new LocalKeySigner(join(dataDir, 'keys', 'jwt-signing-key.pem')).publicJwk()).kid,
    next: (await new LocalKeySigner(join(dataDir, 'keys', 'jwt-next.pem')).publicJwk()).kid,
  };
}, 120_000);
afterAll(async () => {
  await before?.stop();
  await after?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const kidOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).kid as string;

async function signIn(platform: Deployment): Promise<{ access: string; refresh: string }> {
  const response = await platform.api.post('/api/auth/jwt/token/', {
    username: 'admin',
    password: adminPassword,
  });
  expect(response.status).toBe(200);
  return response.body;
}

const me = (platform: Deployment, token: string) => platform.api.withToken(token).get('/api/cloud/users/me/');

describe('the JWKS during a rotation', () => {
  it('publishes the current and the next key, with distinct kids, before and after the switch', async () => {
    expect(kids.current).not.toBe(kids.next);
    for (const [platform, order] of [
      [before, [kids.current, kids.next]],
      [after, [kids.next, kids.current]],
    ] as const) {
      const response = await platform.api.get('/.well-known/jwks.json');
      expect(response.status).toBe(200);
      expect(response.body.keys.map((key: { kid: string }) => key.kid)).toEqual(order);
    }
  });
});

describe('tokens during a rotation', () => {
  it('signs with the current key before the switch and with the next key after it', async () => {
    expect(kidOf((await signIn(before)).access)).toBe(kids.current);
    const fresh = await signIn(after);
    expect(kidOf(fresh.access)).toBe(kids.next);
    expect(kidOf(fresh.refresh)).toBe(kids.next);
  });

  it('accepts tokens of either key on both deployments (old and new containers overlap during the switch)', async () => {
    const old = await signIn(before);
    const fresh = await signIn(after);
    for (const platform of [before, after]) {
      expect((await me(platform, old.access)).status).toBe(200);
      expect((await me(platform, fresh.access)).status).toBe(200);
    }
  });

  it('refreshes a token of the old key into tokens of the new key', async () => {
    const old = await signIn(before);
    const response = await after.api.post('/api/auth/jwt/refresh/', { refresh: old.refresh });
    expect(response.status).toBe(200);
    expect(kidOf(response.body.access)).toBe(kids.next);
  });

  it('refuses a token whose kid is not published, and one signed by another key under a published kid', async () => {
    const stranger = new LocalKeySigner(join(mkdtempSync(join(tmpdir(), 'stranger-')), 'key.pem'));
    const { access } = await signIn(after);
    const [, payload] = access.split('.');
    const forge = async (kid: string) => {
      const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid })).toString('base64url');
      const input = `${header}.${payload}`;
      return `${input}.${lowS(await stranger.sign(Buffer.from(input))).toString('base64url')}`;
    };
    for (const token of [await forge((await stranger.publicJwk()).kid), await forge(kids.next)]) {
      const response = await me(after, token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Given token not valid for any token type' });
    }
  });
});

describe('after the old key is removed', () => {
  let done: Deployment;
  beforeAll(async () => {
    done = await deploy(retired);
  }, 120_000);
  afterAll(async () => {
    await done?.stop();
  });

  it('publishes the new key alone and refuses tokens of the old one', async () => {
    const jwks = await done.api.get('/.well-known/jwks.json');
    expect(jwks.body.keys.map((key: { kid: string }) => key.kid)).toEqual([kids.next]);
    const old = await signIn(before);
    expect((await me(done, old.access)).status).toBe(401);
    expect((await done.api.post('/api/auth/jwt/refresh/', { refresh: old.refresh })).status).toBe(401);
    expect((await me(done, (await signIn(after)).access)).status).toBe(200);
  });
});
