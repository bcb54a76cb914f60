import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxFor } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenant, createUser, unique } from '../support/tenant';

/**
 * A superuser's look after other accounts (the console's Users screen): a reset link sent to the person (never a
 * password the superuser sees or sets), and the organizations an account belongs to. Superusers only.
 */
let platform: TestPlatform;
const newPassword = 'Orchard-Lantern-Comet-58';

beforeAll(async () => {
  platform = await startTestPlatform(
    { PASSWORD_RESETS_PER_HOUR: '3', LOGIN_MAX_FAILURES_PER_IP: '100000' },
    {},
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform?.stop();
});

const reset = (id: number) => `/api/cloud/users/${id}/password-reset/`;
const organizations = (id: number) => `/api/cloud/users/${id}/organizations/`;

/** The reset tokens e-mailed to an address, oldest first. */
function resetTokens(email: string): string[] {
  const base = platform.deps.config.passwordReset.linkBase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return outboxFor(platform, email).flatMap((eml) => {
    const match = new RegExp(`${base}#([A-Za-z0-9_-]{43})`).exec(eml);
    return match?.[1] ? [match[1]] : [];
  });
}

describe('POST /api/cloud/users/{user_id}/password-reset/', () => {
  it("e-mails the person a working reset link; the answer carries no token and the password is the person's", async () => {
    const { user, password } = await createUser(platform);
    const sent = await platform.adminApi.post(reset(user.id));
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ detail: `A link to choose a new password was sent to ${user.email}.` });
    const [token] = resetTokens(user.email);
    expect(token).toBeDefined();
    expect(sent.text).not.toContain(token);
    // Until the person follows the link, their password is unchanged.
    expect(
      (await platform.api.post('/api/auth/jwt/token/', { username: user.username, password })).status,
    ).toBe(200);
    const confirmed = await platform.api.post('/api/auth/password/reset/confirm/', {
      token,
      password: newPassword,
    });
    expect(confirmed.status).toBe(200);
    await platform.api.login(user.username, newPassword);
  });

  it('answers 401 unsigned and 403 to anyone but a superuser, even for their own account, and sends nothing', async () => {
    const tenant = await createTenant(platform);
    const { user, api } = await createUser(platform);
    expect((await platform.api.post(reset(user.id))).status).toBe(401);
    expect((await api.post(reset(user.id))).status).toBe(403);
    expect((await tenant.owner.post(reset(user.id))).status).toBe(403);
    expect((await tenant.owner.post(reset(tenant.ownerUser.id))).status).toBe(403);
    expect(resetTokens(user.email)).toEqual([]);
  });

  it('answers 404 for no such account, 400 naming user_id for a malformed one, 409 for a deactivated account', async () => {
    expect((await platform.adminApi.post(reset(987654321))).status).toBe(404);
    const malformed = await platform.adminApi.post('/api/cloud/users/abc/password-reset/');
    expect(malformed.status).toBe(400);
    expect(malformed.text).toContain('user_id');
    const { user } = await createUser(platform);
    expect((await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false })).status).toBe(
      200,
    );
    const refused = await platform.adminApi.post(reset(user.id));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ detail: expect.stringContaining('deactivated') });
    expect(resetTokens(user.email)).toEqual([]);
  });

  it("shares the person's own per-address limit (PASSWORD_RESETS_PER_HOUR): no one floods an inbox through it", async () => {
    const { user } = await createUser(platform);
    expect((await platform.api.post('/api/auth/password/reset/', { email: user.email })).status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await platform.adminApi.post(reset(user.id))).status).toBe(202);
    const limited = await platform.adminApi.post(reset(user.id));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(resetTokens(user.email)).toHaveLength(3);
  });
});

describe('GET /api/cloud/users/{user_id}/organizations/', () => {
  it("lists the account's organizations with its role in each, and no one else's", async () => {
    const mine = await createTenant(platform);
    const theirs = await createTenant(platform);
    const { user } = await createUser(platform);
    const added = await platform.adminApi.post(
      `/api/cloud/organizations/${mine.organization.slug}/members/`,
      {
        user_id: user.id,
        role: 'admin',
      },
    );
    expect(added.status).toBe(200);
    const listed = await platform.adminApi.get(organizations(user.id));
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(listed.body.results).toEqual([
      expect.objectContaining({ slug: mine.organization.slug, role: 'admin' }),
    ]);
    const owner = await platform.adminApi.get(organizations(theirs.ownerUser.id));
    expect(owner.body.results.map((org: { slug: string; role: string }) => [org.slug, org.role])).toEqual([
      [theirs.organization.slug, 'owner'],
    ]);
  });

  it('answers 401 unsigned, 403 to anyone but a superuser (their own account too), 404 for no such account', async () => {
    const tenant = await createTenant(platform);
    expect((await platform.api.get(organizations(tenant.ownerUser.id))).status).toBe(401);
    expect((await tenant.owner.get(organizations(tenant.ownerUser.id))).status).toBe(403);
    const { api, user } = await createUser(platform, { username: unique('plain') });
    expect((await api.get(organizations(user.id))).status).toBe(403);
    expect((await platform.adminApi.get(organizations(987654321))).status).toBe(404);
  });
});
