import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetPassword } from '../../shared/auth/local-password-reset';
import { NotFoundError, ValidationError } from '../../shared/errors';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

/** `npm run reset-password`'s work (shared/auth/local-password-reset.ts), on the real local stores. */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '3' }, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

async function tokenPair(username: string, password: string): Promise<{ access: string; refresh: string }> {
  const response = await platform.api.post('/api/auth/jwt/token/', { username, password });
  expect(response.status).toBe(200);
  return response.body;
}

describe('resetting a password from the shell', () => {
  it('sets a generated password, which signs in, and ends the earlier tokens and the old password', async () => {
    const { user, password } = await createUser(platform);
    const before = await tokenPair(user.username, password);
    const reset = await resetPassword(platform.deps, user.username);
    expect(reset.generated).toBe(true);
    expect(reset.user).toMatchObject({ id: user.id, username: user.username });
    expect(reset.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await platform.api.withToken(before.access).get('/api/cloud/users/me/')).status).toBe(401);
    expect((await platform.api.post('/api/auth/jwt/refresh/', { refresh: before.refresh })).status).toBe(401);
    expect(
      (await platform.api.post('/api/auth/jwt/token/', { username: user.username, password })).status,
    ).toBe(401);
    const after = await platform.api.login(user.username, reset.password);
    expect((await after.get('/api/cloud/users/me/')).body.id).toBe(user.id);
  });

  it('takes a given password, found by e-mail too', async () => {
    const { user } = await createUser(platform);
    const reset = await resetPassword(platform.deps, user.email, 'Copper-Lantern-Meadow-93');
    expect(reset).toMatchObject({ generated: false, password: 'Copper-Lantern-Meadow-93' });
    await platform.api.login(user.username, 'Copper-Lantern-Meadow-93');
  });

  it('applies the password policy, and changes nothing when it refuses', async () => {
    const { user, password } = await createUser(platform);
    const refused = resetPassword(platform.deps, user.username, 'passwordpassword');
    await expect(refused).rejects.toThrow(ValidationError);
    await expect(refused).rejects.toThrow('This password is too easy to guess');
    await platform.api.login(user.username, password);
  });

  it('lifts the sign-in lock that the forgotten password set', async () => {
    const { user } = await createUser(platform);
    for (let attempt = 0; attempt < 3; attempt++)
      await platform.api.post('/api/auth/jwt/token/', {
        username: user.username,
        password: 'not-it-at-all-1',
      });
    const reset = await resetPassword(platform.deps, user.username);
    const locked = await platform.api.post('/api/auth/jwt/token/', {
      username: user.username,
      password: reset.password,
    });
    expect(locked.status).toBe(200);
  });

  it('names a login that is no user', async () => {
    await expect(resetPassword(platform.deps, 'nobody-at-all')).rejects.toThrow(NotFoundError);
    await expect(resetPassword(platform.deps, 'nobody-at-all')).rejects.toThrow('No user nobody-at-all');
  });
});
