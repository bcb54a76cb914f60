import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strictClock } from '../support/clock';
import { outboxFor } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

/**
 * Forgotten passwords over HTTP (docs/security.md, "Forgotten passwords"): the same answer for every address, a
 * link only to an active account's address, a token that works once, expires, and dies with any password change,
 * and a new password that ends every other session and proves the address.
 */
const { clock, advance } = strictClock();
let platform: TestPlatform;
const newPassword = 'Orchard-Lantern-Comet-58';

beforeAll(async () => {
  platform = await startTestPlatform(
    {
      PASSWORD_RESET_TTL_SECONDS: '600',
      PASSWORD_RESET_ANSWER_MS: '100',
      PASSWORD_RESETS_PER_CLIENT_PER_HOUR: '100000',
      LOGIN_MAX_FAILURES_PER_IP: '100000',
    },
    { clock },
    { dataPlane: false },
  );
});
afterAll(async () => {
  await platform?.stop();
});

const ask = (email: string) => platform.api.post('/api/auth/password/reset/', { email });
const confirm = (token: string, password = newPassword) =>
  platform.api.post('/api/auth/password/reset/confirm/', { token, password });

/** The reset links e-mailed to an address, oldest first: the token after the link base's `#`. */
function resetTokens(email: string): string[] {
  const base = platform.deps.config.passwordReset.linkBase;
  return outboxFor(platform, email).flatMap((eml) => {
    const match = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#([A-Za-z0-9_-]{43})`).exec(eml);
    return match?.[1] ? [match[1]] : [];
  });
}

async function askedToken(email: string): Promise<string> {
  const asked = await ask(email);
  expect(asked.status).toBe(202);
  const token = resetTokens(email).at(-1);
  expect(token).toBeDefined();
  return token as string;
}

describe('POST /api/auth/password/reset/', () => {
  it('answers an address with an account exactly as one without, and e-mails only the first', async () => {
    const { user } = await createUser(platform);
    const unknown = `${unique('nobody')}@example.com`;
    const known = await ask(user.email);
    const none = await ask(unknown);
    expect(known.status).toBe(202);
    expect(none.status).toBe(202);
    expect(none.body).toEqual(known.body);
    expect(none.text).toBe(known.text);
    expect(resetTokens(user.email)).toHaveLength(1);
    expect(outboxFor(platform, unknown)).toEqual([]);
    // The address is matched case-insensitively, like sign-in.
    expect((await ask(user.email.toUpperCase())).status).toBe(202);
    expect(resetTokens(user.email)).toHaveLength(2);
  });

  it('sends nothing to a deactivated account', async () => {
    const { user } = await createUser(platform);
    expect((await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false })).status).toBe(
      200,
    );
    expect((await ask(user.email)).status).toBe(202);
    expect(resetTokens(user.email)).toEqual([]);
  });

  it('names the field of a malformed address', async () => {
    const answer = await ask('not an address');
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toContain('email');
  });

  it('is throttled per address, whether or not it has an account, with Retry-After', async () => {
    for (const email of [(await createUser(platform)).user.email, `${unique('none')}@example.com`]) {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await ask(email)).status);
      expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
      const limited = await ask(email);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

describe('POST /api/auth/password/reset/confirm/', () => {
  it('sets the password once, ends every other session and token, proves the address and says so by e-mail', async () => {
    const { user, api, password } = await createUser(platform);
    const refresh = (await platform.api.post('/api/auth/jwt/token/', { username: user.username, password }))
      .body.refresh;
    const token = await askedToken(user.email);
    const changed = await confirm(token);
    expect(changed.status).toBe(200);
    expect(changed.body.detail).toMatch(/password was changed/);
    // Earlier credentials are dead, the old password too; the new one signs in.
    expect((await api.get('/api/cloud/users/me/')).status).toBe(401);
    expect((await platform.api.post('/api/auth/jwt/refresh/', { refresh })).status).toBe(401);
    expect(
      (await platform.api.post('/api/auth/jwt/token/', { username: user.username, password })).status,
    ).toBe(401);
    const signedIn = await platform.api.login(user.username, newPassword);
    expect((await signedIn.get('/api/cloud/users/me/')).body.email_verified).toBe(true);
    // Once only.
    const again = await confirm(token, 'Another-Quiet-Harbor-77');
    expect(again.status).toBe(400);
    expect(again.body.token[0]).toMatch(/does not work/);
    expect(outboxFor(platform, user.email).some((eml) => eml.includes('Your password was changed'))).toBe(
      true,
    );
  });

  it('keeps only the hash of the token at rest', async () => {
    const { user } = await createUser(platform);
    const token = await askedToken(user.email);
    const item = async (PK: string) =>
      (
        await platform.deps.store.doc.send(
          new GetCommand({ TableName: platform.deps.store.table, Key: { PK, SK: 'TOKEN' } }),
        )
      ).Item;
    const hash = createHash('sha256').update(token).digest('hex');
    expect(await item(`PWRESET#${hash}`)).toMatchObject({ user_id: user.id });
    expect(await item(`PWRESET#${token}`)).toBeUndefined();
    expect(JSON.stringify(await item(`PWRESET#${hash}`))).not.toContain(token);
  });

  it('keeps the token when the password is refused by the policy, with the message at the field', async () => {
    const { user } = await createUser(platform);
    const token = await askedToken(user.email);
    const weak = await confirm(token, 'password123');
    expect(weak.status).toBe(400);
    expect(weak.body.password).toBeDefined();
    expect((await confirm(token)).status).toBe(200);
  });

  it('refuses a token after it expired, and one older than a password change by any route', async () => {
    const { user, api, password } = await createUser(platform);
    const expiring = await askedToken(user.email);
    advance(601_000);
    expect((await confirm(expiring)).status).toBe(400);
    const older = await askedToken(user.email);
    const own = await api.patch(`/api/cloud/users/${user.id}/`, {
      password: 'Juniper-Beacon-Tundra-31',
      current_password: password,
    });
    expect(own.status).toBe(200);
    expect((await confirm(older)).status).toBe(400);
  });

  it('refuses an unknown or malformed token at the field, like a used one', async () => {
    const unknown = await confirm('A'.repeat(43));
    const malformed = await confirm('not-a-token');
    expect(unknown.status).toBe(400);
    expect(malformed.body).toEqual(unknown.body);
  });

  it('refuses a deactivated account its token', async () => {
    const { user } = await createUser(platform);
    const token = await askedToken(user.email);
    await platform.adminApi.patch(`/api/cloud/users/${user.id}/`, { is_active: false });
    expect((await confirm(token)).status).toBe(400);
  });
});

describe('the client address limit', () => {
  let limited: TestPlatform;
  beforeAll(async () => {
    limited = await startTestPlatform(
      { PASSWORD_RESET_ANSWER_MS: '0', PASSWORD_RESETS_PER_CLIENT_PER_HOUR: '3' },
      {},
      { dataPlane: false },
    );
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('limits the requests of one client address over every address it asks for', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await limited.api.post('/api/auth/password/reset/', { email: `${unique('a')}@example.com` })).status,
      );
    expect(statuses).toEqual([202, 202, 202, 429]);
  });
});
