import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, unique } from '../support/tenant';

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.stop();
});

describe('adding a new account as a member', () => {
  it('without an e-mail is a 400 naming the field, not a server error', async () => {
    const tenant = await createTenant(platform);
    const response = await platform.adminApi.post(
      `/api/cloud/organizations/${tenant.organization.slug}/members/`,
      { username: unique('nomail'), password: 'Lantern-Fjord-Mosaic-3' },
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ email: ['This field is required.'] });
  });
});
