import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

const newPassword = 'Copper-Nebula-Thistle-5';

async function signIn(username: string, password: string): Promise<{ access: string; refresh: string }> {
  const response = await platform.api.post('/api/auth/jwt/token/', { username, password });
  expect(response.status).toBe(200);
  return response.body;
}

const me = (access: string) => platform.api.withToken(access).get('/api/cloud/users/me/');
const refresh = (token: string) => platform.api.post('/api/auth/jwt/refresh/', { refresh: token });

describe('changing one own password', () => {
  it('returns 400 naming current_password when it is missing, and keeps the password', async () => {
    const { user, api, password } = await createUser(platform);
    const response = await api.patch(`/api/cloud/users/${user.id}/`, { password: newPassword });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ current_password: ['This field is required.'] });
    await signIn(user.username, password);
  });

  it('returns 400 naming current_password when it is wrong', async () => {
    const { user, api } = await createUser(platform);
    const response = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: 'Not-The-Right-One-77',
      password: newPassword,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ current_password: ['The current password is not correct.'] });
  });

  it('asks a superuser for the current password of its own account too', async () => {
    const response = await platform.adminApi.patch(`/api/cloud/users/${platform.admin.user.id}/`, {
      password: newPassword,
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['current_password']);
  });

  it('ends every earlier access and refresh token', async () => {
    const { user, password } = await createUser(platform);
    const first = await signIn(user.username, password);
    const second = await signIn(user.username, password);
    const response = await platform.api
      .withToken(first.access)
      .patch(`/api/cloud/users/${user.id}/`, { current_password: password, password: newPassword });
    expect(response.status).toBe(200);
    for (const pair of [first, second]) {
      expect((await me(pair.access)).status).toBe(401);
      expect((await refresh(pair.refresh)).status).toBe(401);
    }
    const fresh = await signIn(user.username, newPassword);
    expect((await me(fresh.access)).status).toBe(200);
  });
});

describe('a superuser changing or deactivating another user', () => {
  it('needs no current password, and ends the user’s tokens', async () => {
    const { user, password } = await createUser(platform);
    const tokens = await signIn(user.username, password);
    const response = await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { password: newPassword });
    expect(response.status).toBe(200);
    expect((await me(tokens.access)).status).toBe(401);
    expect((await refresh(tokens.refresh)).status).toBe(401);
  });

  it('keeps tokens issued before a deactivation dead after reactivation', async () => {
    const { user, password } = await createUser(platform);
    const tokens = await signIn(user.username, password);
    expect((await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false })).status).toBe(
      200,
    );
    expect((await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: true })).status).toBe(
      200,
    );
    expect((await me(tokens.access)).status).toBe(401);
    expect((await refresh(tokens.refresh)).status).toBe(401);
    await signIn(user.username, password);
  });

  it('keeps tokens when only names change', async () => {
    const { user, password } = await createUser(platform);
    const tokens = await signIn(user.username, password);
    expect(
      (await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { first_name: 'Renamed' })).status,
    ).toBe(200);
    expect((await me(tokens.access)).status).toBe(200);
  });
});

describe('refresh token rotation', () => {
  it('returns a new access and a new refresh token, and the new refresh token works', async () => {
    const { user, password } = await createUser(platform);
    const tokens = await signIn(user.username, password);
    const first = await refresh(tokens.refresh);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['access', 'refresh']);
    expect(first.body.refresh).not.toBe(tokens.refresh);
    expect((await me(first.body.access)).status).toBe(200);
    const second = await refresh(first.body.refresh);
    expect(second.status).toBe(200);
  });

  it('refuses a rotated refresh token and then revokes its whole family', async () => {
    const { user, password } = await createUser(platform);
    const tokens = await signIn(user.username, password);
    const rotated = await refresh(tokens.refresh);
    expect(rotated.status).toBe(200);
    const replay = await refresh(tokens.refresh);
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ detail: 'Given token not valid for any token type' });
    expect((await refresh(rotated.body.refresh)).status).toBe(401);
    // Other sign-ins of the same user are other families and keep working.
    const other = await signIn(user.username, password);
    expect((await refresh(other.refresh)).status).toBe(200);
  });

  it('lets at most one of two concurrent refreshes with the same token win', async () => {
    const { user, password } = await createUser(platform);
    const tokens = await signIn(user.username, password);
    const results = await Promise.all([refresh(tokens.refresh), refresh(tokens.refresh)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses[1]).toBe(401);
    for (const result of results.filter((r) => r.status === 200)) {
      expect((await refresh(result.body.refresh)).status).toBe(401);
    }
  });
});
