import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strictClock } from '../support/clock';
import { outboxFor } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

/**
 * Self sign-up and the link that confirms an address over HTTP (docs/security.md, "Sign-up and confirming an
 * address"): closed by default; when open, the same answer for a new address and one with an account, no password
 * sign-in before the address is confirmed, and a confirmation link that works once.
 */
const { clock, advance } = strictClock();
let open: TestPlatform;
let closed: TestPlatform;
const password = 'Meadow-Quartz-Lantern-83';

beforeAll(async () => {
  [open, closed] = await Promise.all([
    startTestPlatform(
      { SIGN_UP: 'open', PASSWORD_RESET_ANSWER_MS: '50', SIGN_UPS_PER_CLIENT_PER_HOUR: '100000' },
      { clock },
      { dataPlane: false },
    ),
    startTestPlatform({}, {}, { dataPlane: false }),
  ]);
});
afterAll(async () => {
  await Promise.all([open?.stop(), closed?.stop()]);
});

const signUp = (platform: TestPlatform, email: string, body: Record<string, unknown> = {}) =>
  platform.api.post('/api/auth/signup/', { email, password, ...body });

/** The tokens of the confirmation links e-mailed to an address, oldest first. */
function confirmationTokens(platform: TestPlatform, email: string): string[] {
  return outboxFor(platform, email).flatMap((eml) => {
    const match = /\/verify-email#([A-Za-z0-9_-]{43})/.exec(eml);
    return match?.[1] ? [match[1]] : [];
  });
}

const confirm = (platform: TestPlatform, token: string) =>
  platform.api.post('/api/auth/email/verify/', { token });

describe('POST /api/auth/signup/', () => {
  it('is refused while the platform does not allow sign-up (the default)', async () => {
    const answer = await signUp(closed, `${unique('closed')}@example.com`);
    expect(answer.status).toBe(403);
    expect(answer.body.detail).toMatch(/Sign-up is closed/);
  });

  it('answers a new address exactly as one with an account, and e-mails each what fits', async () => {
    const { user } = await createUser(open);
    const fresh = `${unique('fresh')}@example.com`;
    const created = await signUp(open, fresh);
    const existing = await signUp(open, user.email);
    expect(created.status).toBe(202);
    expect(existing.status).toBe(202);
    expect(existing.text).toBe(created.text);
    expect(confirmationTokens(open, fresh)).toHaveLength(1);
    // The owner of the existing account is told, and gets no link: nothing changed for the account.
    const told = outboxFor(open, user.email);
    expect(told.some((eml) => eml.includes('Someone tried to sign up with your address'))).toBe(true);
    expect(confirmationTokens(open, user.email)).toEqual([]);
    expect((await open.api.post('/api/auth/jwt/token/', { username: user.email, password })).status).toBe(
      401,
    );
  });

  it('signs in with its password only once the address is confirmed, and the link works once', async () => {
    const email = `${unique('new')}@example.com`;
    expect((await signUp(open, email, { first_name: 'Ada' })).status).toBe(202);
    const before = await open.api.post('/api/auth/jwt/token/', { username: email, password });
    expect(before.status).toBe(401);
    const [token] = confirmationTokens(open, email);
    const confirmed = await confirm(open, token as string);
    expect(confirmed.status).toBe(200);
    const signedIn = await open.api.login(email, password);
    const me = await signedIn.get('/api/cloud/users/me/');
    expect(me.body).toMatchObject({ email, first_name: 'Ada', email_verified: true, is_superuser: false });
    const again = await confirm(open, token as string);
    expect(again.status).toBe(400);
    expect(again.body.token[0]).toMatch(/does not work/);
  });

  it('sends a new link when an unconfirmed sign-up signs up again', async () => {
    const email = `${unique('again')}@example.com`;
    await signUp(open, email);
    await signUp(open, email);
    const tokens = confirmationTokens(open, email);
    expect(tokens).toHaveLength(2);
    expect((await confirm(open, tokens[1] as string)).status).toBe(200);
  });

  it('applies the password policy with its message at the field, for every address alike', async () => {
    const { user } = await createUser(open);
    const weakNew = await signUp(open, `${unique('weak')}@example.com`, { password: 'password1' });
    const weakOld = await signUp(open, user.email, { password: 'password1' });
    expect(weakNew.status).toBe(400);
    expect(weakNew.body.password).toBeDefined();
    expect(weakOld.text).toBe(weakNew.text);
  });

  it('is throttled per address, whether or not it has an account, with Retry-After', async () => {
    const email = `${unique('many')}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signUp(open, email)).status);
    expect(statuses.slice(0, 5).every((status) => status === 202)).toBe(true);
    expect(statuses[5]).toBe(429);
  });

  it('names the field of a malformed address', async () => {
    const answer = await signUp(open, 'nope');
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body)).toContain('email');
  });
});

describe('POST /api/auth/email/verify/', () => {
  it('refuses an unknown or malformed token at the field', async () => {
    const unknown = await confirm(open, 'B'.repeat(43));
    expect(unknown.status).toBe(400);
    expect((await confirm(open, 'x')).body).toEqual(unknown.body);
  });

  it('keeps only the hash of the token at rest', async () => {
    const email = `${unique('hashed')}@example.com`;
    await signUp(open, email);
    const [token] = confirmationTokens(open, email);
    const item = async (PK: string) =>
      (
        await open.deps.store.doc.send(
          new GetCommand({ TableName: open.deps.store.table, Key: { PK, SK: 'TOKEN' } }),
        )
      ).Item;
    const hash = createHash('sha256')
      .update(token as string)
      .digest('hex');
    expect(await item(`EMAILVERIFY#${hash}`)).toMatchObject({ email });
    expect(await item(`EMAILVERIFY#${token}`)).toBeUndefined();
  });

  // Last: it moves this platform's clock a day ahead.
  it('refuses a link once it expired', async () => {
    const email = `${unique('late')}@example.com`;
    await signUp(open, email);
    const [token] = confirmationTokens(open, email);
    advance(86_401_000);
    expect((await confirm(open, token as string)).status).toBe(400);
    expect((await open.api.post('/api/auth/jwt/token/', { username: email, password })).status).toBe(401);
  });
});
