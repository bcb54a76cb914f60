import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

/** `POST /api/cloud/users/password-check/`: the policy's verdict without setting a password (docs/pages.md). */

let platform: TestPlatform;
const perMinute = 12;

beforeAll(async () => {
  platform = await startTestPlatform({ PASSWORD_CHECKS_PER_MINUTE: String(perMinute) });
});
afterAll(async () => {
  await platform.stop();
});

const check = (body: unknown, api = platform.api) => api.post('/api/cloud/users/password-check/', body);

describe('the password check', () => {
  it('answers the message a refused change of the same password answers, and accepts a good one', async () => {
    const { user, api, password } = await createUser(platform);
    const refused = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: 'passwordpassword',
    });
    expect(refused.status).toBe(400);
    const verdict = await check({ password: 'passwordpassword' });
    expect(verdict.status).toBe(200);
    expect(verdict.body).toEqual({ valid: false, password: refused.body.password });

    const short = await check({ password: 'short' });
    expect(short.body).toEqual({ valid: false, password: ['Ensure this field has at least 10 characters.'] });

    const good = await check({ password: 'Copper-Lantern-Meadow-93' });
    expect(good.body).toEqual({ valid: true, password: [] });
  });

  it("counts the account's own words as the API does where the password is set", async () => {
    const name = unique('zorbaxquint').replace(/[^a-z]/g, '');
    const password = `${name}1`;
    expect((await check({ password })).body.valid).toBe(true);
    const own = await check({ password, username: name, email: `${name}@example.com` });
    expect(own.body.valid).toBe(false);
    const created = await platform.adminApi.post('/api/cloud/users/', {
      email: `${name}@example.com`,
      username: name,
      password,
    });
    expect(created.status).toBe(400);
    expect(own.body.password).toEqual(created.body.password);
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const tooLong = await check({ password: 'a'.repeat(1025) });
    expect(tooLong.status).toBe(400);
    expect(Object.keys(tooLong.body)).toEqual(['password']);
    const missing = await check({});
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body)).toEqual(['password']);
    const extra = await check({ password: 'Copper-Lantern-Meadow-93', role: 'admin' });
    expect(extra.status).toBe(400);
  });

  it('limits the checks per client address with a 429 before the estimate runs', async () => {
    // Whatever minute boundary the calls cross, 2 × limit + 1 calls put more than the limit into one window.
    const statuses: number[] = [];
    let limited: { status: number; body: any } | undefined;
    for (let call = 0; call < 2 * perMinute + 1 && !limited; call += 1) {
      const answer = await check({ password: `Copper-Lantern-${call}` });
      statuses.push(answer.status);
      if (answer.status === 429) limited = answer;
    }
    expect(limited?.status).toBe(429);
    expect(limited?.body.retry_after).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  });
});
