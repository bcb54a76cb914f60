import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestToken } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform(
    {
      INVITATION_MAX_FAILURES_PER_IP: '2',
      INVITATION_LOCKOUT_SECONDS: '120',
    },
    {},
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform.stop();
});

const details = (token: string) => `/api/cloud/invitations/${token}/details/`;

describe('throttling of the public invitation endpoints by client address', () => {
  it('locks the address after its failures, for every token, with 429 and Retry-After', async () => {
    const tenant = await createTenant(platform);
    const email = `${unique('ip')}@example.com`;
    const made = await tenant.owner.post(
      `/api/cloud/organizations/${tenant.organization.slug}/invitations/`,
      {
        invitee_identifier: email,
      },
    );
    expect(made.status).toBe(201);
    const token = latestToken(platform, email);
    expect((await platform.api.get(details(token))).status).toBe(200);
    expect((await platform.api.get(details('11111111-1111-4111-8111-111111111111'))).status).toBe(404);
    expect((await platform.api.get(details('not-a-token'))).status).toBe(404);
    // Two failures from this address: even a valid token is refused now, before anything is read.
    const locked = await platform.api.get(details(token));
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(locked.headers.get('cache-control')).toBe('no-store');
    const accepting = await platform.api.post(`/api/cloud/invitations/${token}/accept/`, {
      password: 'Copper-Lantern-Meadow-83',
      first_name: 'I',
      last_name: 'P',
    });
    expect(accepting.status).toBe(429);
  });
});
