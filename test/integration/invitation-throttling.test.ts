import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, type Tenant, unique } from '../support/tenant';

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform(
    { INVITATION_MAX_FAILURES_PER_TOKEN: '2', INVITATION_LOCKOUT_SECONDS: '120' },
    {},
    { dataPlane: false },
  );
  tenant = await createTenant(platform);
});
afterAll(async () => {
  await platform.stop();
});

const details = (token: string) => `/api/cloud/invitations/${token}/details/`;

async function invite(): Promise<string> {
  const email = `${unique('throttle')}@example.com`;
  const made = await tenant.owner.post(`/api/cloud/organizations/${tenant.organization.slug}/invitations/`, {
    invitee_identifier: email,
  });
  expect(made.status).toBe(201);
  return latestToken(platform, email);
}

describe('throttling of the public invitation endpoints: per token, never per client address', () => {
  it('locks a token after its own failures, with 429, Retry-After and no-store, and no other token', async () => {
    const token = await invite();
    const other = await invite();
    // Two refused acceptances of this token (a weak password): its failures.
    for (let i = 0; i < 2; i++) {
      const refused = await platform.api.post(`/api/cloud/invitations/${token}/accept/`, {
        password: 'short',
        first_name: 'I',
        last_name: 'P',
      });
      expect(refused.status).toBe(400);
    }
    const locked = await platform.api.get(details(token));
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(locked.headers.get('cache-control')).toBe('no-store');
    // The same address, another valid token: answered.
    expect((await platform.api.get(details(other))).status).toBe(200);
  });

  it('a valid token answers from an address that sent any number of unknown and malformed tokens', async () => {
    for (let i = 0; i < 30; i++) {
      // Each one new (a token sent again and again is locked, as above): well-formed unknown ones and malformed ones.
      const token = i % 2 === 0 ? `${unique('unknown')}${'A'.repeat(30)}` : `not-a-token-${i}`;
      expect((await platform.api.get(details(token))).status).toBe(404);
    }
    const token = await invite();
    const answered = await platform.api.get(details(token));
    expect(answered.status).toBe(200);
    expect(answered.headers.get('cache-control')).toBe('no-store');
    const accepted = await platform.api.post(`/api/cloud/invitations/${token}/accept/`, {
      password: 'Copper-Lantern-Meadow-83',
      first_name: 'I',
      last_name: 'P',
    });
    expect(accepted.status).toBe(200);
  });
});
