import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

let platform: TestPlatform;
const events: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
const log: Logger = {
  debug: () => {},
  info: () => {},
  error: () => {},
  warn: (message, fields) => {
    events.push({ message, fields });
  },
  child: () => log,
};

beforeAll(async () => {
  // Small numbers so the test stays short; the per-IP limit is set high except where a test needs it.
  platform = await startTestPlatform(
    {
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '5',
      LOGIN_MAX_FAILURES_PER_IP: '1000',
      LOGIN_LOCKOUT_SECONDS: '60',
    },
    { log },
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

const login = (username: string, password: string) =>
  platform.api.post('/api/auth/jwt/token/', { username, password });

describe('sign-in throttling per account', () => {
  it('answers 429 with Retry-After after parallel wrong passwords, even to the right password', async () => {
    const { user, password } = await createUser(platform);
    const attempts = await Promise.all(
      Array.from({ length: 200 }, () => login(user.username, 'Wrong-Guess-Number-1')),
    );
    // Attempts are counted before the password is checked: no more than the threshold ever reach the check.
    const checked = attempts.filter((r) => r.status === 401).length;
    expect(checked).toBeGreaterThanOrEqual(1);
    expect(checked).toBeLessThanOrEqual(5);
    expect(attempts.every((r) => r.status === 401 || r.status === 429)).toBe(true);
    const right = await login(user.username, password);
    expect(right.status).toBe(429);
    const retryAfter = Number(right.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(right.body).toEqual({ detail: 'Request was throttled.', retry_after: retryAfter });
  });

  it('counts the e-mail address and the username as the same account', async () => {
    const { user, password } = await createUser(platform);
    for (let i = 0; i < 3; i++) expect((await login(user.username, 'Wrong-Guess-Number-1')).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await login(user.email, 'Wrong-Guess-Number-1')).status).toBe(401);
    expect((await login(user.email, password)).status).toBe(429);
  });

  it('forgets earlier failures after a successful sign-in', async () => {
    const { user, password } = await createUser(platform);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++)
        expect((await login(user.username, 'Wrong-Guess-Number-1')).status).toBe(401);
      expect((await login(user.username, password)).status).toBe(200);
    }
  });

  it('throttles unknown usernames the same way, so that the answer tells nothing about existence', async () => {
    for (let i = 0; i < 5; i++) expect((await login('nobody-here', 'Wrong-Guess-Number-1')).status).toBe(401);
    expect((await login('nobody-here', 'Wrong-Guess-Number-1')).status).toBe(429);
  });

  it('logs failures as structured events without the password or the username', async () => {
    const { user } = await createUser(platform);
    events.length = 0;
    await login(user.username, 'Wrong-Guess-Number-1');
    const failure = events.find((e) => e.message === 'sign-in failed');
    expect(failure?.fields).toMatchObject({ event: 'login_failed', client_ip: expect.any(String) });
    expect(failure?.fields?.account).toMatch(/^[0-9a-f]{16}$/);
    const line = JSON.stringify(events);
    expect(line).not.toContain('Wrong-Guess-Number-1');
    expect(line).not.toContain(user.username);
  });

  it('counts wrong current passwords of a password change as failures of the account', async () => {
    const { user, api, password } = await createUser(platform);
    for (let i = 0; i < 5; i++) {
      const change = await api.patch(`/api/cloud/users/${user.id}/`, {
        current_password: `Wrong-Guess-Number-${i}`,
        password: 'Copper-Nebula-Thistle-5',
      });
      expect(change.status).toBe(400);
    }
    const blocked = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: 'Copper-Nebula-Thistle-5',
    });
    expect(blocked.status).toBe(429);
    expect((await login(user.username, password)).status).toBe(429);
  });
});

describe('sign-in throttling per client address', () => {
  it('answers 429 to every account from an address after too many failures there', async () => {
    const local = await startTestPlatform(
      {
        LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000',
        LOGIN_MAX_FAILURES_PER_IP: '6',
      },
      {},
      { dataPlane: false },
    );
    try {
      for (let i = 0; i < 6; i++) {
        expect(
          (await local.api.post('/api/auth/jwt/token/', { username: `guess-${i}`, password: 'x' })).status,
        ).toBe(401);
      }
      const admin = await local.api.post('/api/auth/jwt/token/', { username: 'admin', password: 'x' });
      expect(admin.status).toBe(429);
      expect(Number(admin.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await local.stop();
    }
  });
});
