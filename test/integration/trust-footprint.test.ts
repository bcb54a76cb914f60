import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

/**
 * Part of the cross-tenant trust suite: the container's verified-token cache (shared/auth/tokens.ts) saves the
 * signature check of a token seen before, and nothing else: the per-user token version is still read on every
 * request, so a password change ends a remembered token at once, and one user's change ends no one else's.
 */

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ ACCESS_CACHE_SECONDS: '0' }, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

const newPassword = 'Copper-Lantern-Vista-83';

/** The signature checks the container makes while `run` runs. */
async function signatureChecksDuring(run: () => Promise<unknown>): Promise<number> {
  const checks = vi.spyOn(
    platform.deps.tokens as unknown as {
      verifySignedToken: (token: string, type: string) => Promise<unknown>;
    },
    'verifySignedToken',
  );
  try {
    await run();
    return checks.mock.calls.length;
  } finally {
    checks.mockRestore();
  }
}

describe('the verified-token cache', () => {
  it('checks a token’s signature once, then answers from the cache', async () => {
    const { api } = await createUser(platform);
    expect((await api.get('/api/cloud/users/me/')).status).toBe(200);
    const checks = await signatureChecksDuring(async () => {
      for (let i = 0; i < 3; i++) expect((await api.get('/api/cloud/users/me/')).status).toBe(200);
    });
    expect(checks).toBe(0);
  });

  it('a password change ends a remembered token at once, and only that user’s', async () => {
    const mallory = await createUser(platform);
    const alice = await createUser(platform);
    expect((await mallory.api.get('/api/cloud/users/me/')).status).toBe(200);
    expect((await alice.api.get('/api/cloud/users/me/')).status).toBe(200);
    const change = await mallory.api.patch(`/api/cloud/users/${mallory.user.id}/`, {
      current_password: mallory.password,
      password: newPassword,
    });
    expect(change.status).toBe(200);
    // Still remembered as verified (no signature check), refused by the token version all the same.
    const checks = await signatureChecksDuring(async () => {
      expect((await mallory.api.get('/api/cloud/users/me/')).status).toBe(401);
      expect((await alice.api.get('/api/cloud/users/me/')).status).toBe(200);
    });
    expect(checks).toBe(0);
  });

  it('a superuser’s deactivation ends a remembered token at once', async () => {
    const { user, api } = await createUser(platform);
    expect((await api.get('/api/cloud/users/me/')).status).toBe(200);
    const off = await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false });
    expect(off.status).toBe(200);
    expect((await api.get('/api/cloud/users/me/')).status).toBe(401);
  });
});
