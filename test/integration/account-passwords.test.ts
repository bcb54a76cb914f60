import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({}, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform.stop();
});

const weak = ['12345678', 'password', '        ', '1234567890', 'passwordpassword'];

describe('the password policy', () => {
  it.each(weak)('refuses %j when a superuser creates a user, naming the field', async (password) => {
    const response = await platform.adminApi.post('/api/cloud/users/', {
      email: `${unique('weak')}@example.com`,
      password,
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['password']);
    expect(response.body.password[0]).toMatch(/at least 10 characters|too easy to guess|blank/);
  });

  it('refuses a weak password when users change their own', async () => {
    const { user, api, password } = await createUser(platform);
    const response = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: 'passwordpassword',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      password: ['This password is too easy to guess: use a longer phrase of unrelated words.'],
    });
    await platform.api.login(user.username, password);
  });

  it("refuses a password made of the user's own username", async () => {
    const username = unique('zorbaxquint');
    const response = await platform.adminApi.post('/api/cloud/users/', {
      email: `${username}@example.com`,
      username,
      password: `${username}1`,
    });
    expect(response.status).toBe(400);
    expect(response.body.password).toHaveLength(1);
  });

  it('refuses a weak password when a superuser changes another user', async () => {
    const { user } = await createUser(platform);
    const response = await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, {
      password: '1234567890',
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['password']);
  });

  it('refuses a weak password for a user created through the members endpoint', async () => {
    const org = await platform.adminApi.post('/api/cloud/organizations/', { name: unique('Org') });
    const response = await platform.adminApi.post(`/api/cloud/organizations/${org.body.slug}/members/`, {
      email: `${unique('m')}@example.com`,
      password: 'qwertyuiop12',
    });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['password']);
  });

  it('refuses to start with a weak ADMIN_PASSWORD', async () => {
    await expect(
      startTestPlatform({ ADMIN_PASSWORD: 'password123' }, {}, { dataPlane: false }),
    ).rejects.toThrow(/ADMIN_PASSWORD is refused by the password policy/);
  });
});
