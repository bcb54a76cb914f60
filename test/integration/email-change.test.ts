import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxFor } from '../support/invitation-mail';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser, unique } from '../support/tenant';

/**
 * Changing one's e-mail address over HTTP (docs/security.md, "Changing the e-mail address"): with the current
 * password, nothing changes until the link e-mailed to the new address is followed; the answer never tells whether
 * the new address has an account; the link works once, and only while the account is as it was asked.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ PASSWORD_RESET_ANSWER_MS: '20' }, {}, { dataPlane: false });
});
afterAll(async () => {
  await platform?.stop();
});

/** The tokens of the links e-mailed to an address that lead to the confirmation page, oldest first. */
function linkTokens(email: string, page = 'verify-email'): string[] {
  return outboxFor(platform, email).flatMap((eml) => {
    const match = new RegExp(`/${page}#([A-Za-z0-9_-]{43})`).exec(eml);
    return match?.[1] ? [match[1]] : [];
  });
}

const follow = (token: string) => platform.api.post('/api/auth/email/verify/', { token });

async function person() {
  const made = await createUser(platform);
  const ask = (email: string, current_password = made.password) =>
    made.api.post('/api/auth/email/change/', { email, current_password });
  return { ...made, ask };
}

describe('POST /api/auth/email/change/', () => {
  it('needs a signed-in user', async () => {
    const answer = await platform.api.post('/api/auth/email/change/', {
      email: 'x@example.com',
      current_password: 'anything',
    });
    expect(answer.status).toBe(401);
  });

  it('needs the current password, and a new address, each refused at its field', async () => {
    const { user, ask } = await person();
    const wrong = await ask(`${unique('new')}@example.com`, 'not-the-password');
    expect(wrong.status).toBe(400);
    expect(wrong.body.current_password[0]).toMatch(/not correct/);
    const same = await ask(user.email.toUpperCase());
    expect(same.status).toBe(400);
    expect(same.body.email[0]).toMatch(/already the address/);
    expect((await ask('not-an-address')).body.email).toBeDefined();
  });

  it('changes nothing until the link sent to the new address is followed, once', async () => {
    const { user, api, password, ask } = await person();
    const to = `${unique('moved')}@example.com`;
    const asked = await ask(to);
    expect(asked.status).toBe(202);
    expect((await api.get('/api/cloud/users/me/')).body.email).toBe(user.email);
    expect(
      outboxFor(platform, user.email).some((eml) => eml.includes('A change of your e-mail address')),
    ).toBe(true);
    const [token] = linkTokens(to);
    expect(token).toBeDefined();
    const followed = await follow(token as string);
    expect(followed.status).toBe(200);
    expect(followed.body.detail).toContain(to);
    // The account's address was never proven (a superuser made it): this first proof ends every session.
    expect(followed.body.detail).toMatch(/sign in again/);
    expect((await api.get('/api/cloud/users/me/')).status).toBe(401);
    // The new address signs in; the old one no longer names the account.
    const again = await platform.api.login(to, password);
    expect((await again.get('/api/cloud/users/me/')).body).toMatchObject({ email: to, email_verified: true });
    expect((await platform.api.post('/api/auth/jwt/token/', { username: user.email, password })).status).toBe(
      401,
    );
    expect(
      outboxFor(platform, user.email).some((eml) => eml.includes('Your e-mail address was changed')),
    ).toBe(true);
    expect((await follow(token as string)).status).toBe(400);
  });

  it('answers alike when the new address has an account, and only tells that account', async () => {
    const holder = await createUser(platform);
    const first = await person();
    const second = await person();
    const free = await first.ask(`${unique('free')}@example.com`);
    const taken = await second.ask(holder.user.email);
    expect(taken.status).toBe(202);
    expect(taken.text).toBe(free.text);
    expect(linkTokens(holder.user.email)).toEqual([]);
    expect(
      outboxFor(platform, holder.user.email).some((eml) => eml.includes('Someone tried to move an account')),
    ).toBe(true);
    expect((await second.api.get('/api/cloud/users/me/')).body.email).toBe(second.user.email);
  });

  it('refuses the link when the address was taken by another account meanwhile, and changes nothing', async () => {
    const { user, api, ask } = await person();
    const to = `${unique('race')}@example.com`;
    await ask(to);
    const [token] = linkTokens(to);
    await createUser(platform, { email: to });
    const followed = await follow(token as string);
    expect(followed.status).toBe(400);
    expect(followed.body.token[0]).toMatch(/has an account now/);
    expect((await api.get('/api/cloud/users/me/')).body.email).toBe(user.email);
  });

  it('ends the link when the password changes before it is followed', async () => {
    const { user, api, password, ask } = await person();
    const to = `${unique('late')}@example.com`;
    await ask(to);
    const [token] = linkTokens(to);
    const changed = await api.patch(`/api/cloud/users/${user.id}/`, {
      current_password: password,
      password: 'Orbit-Saffron-Kettle-19',
    });
    expect(changed.status).toBe(200);
    expect((await follow(token as string)).status).toBe(400);
  });

  it('ends a reset link sent to the old address once the address changed', async () => {
    const { password, ask } = await person();
    // A proven address first (a first proof would end the reset link anyway, with every session).
    const proven = `${unique('proven')}@example.com`;
    await ask(proven);
    await follow(linkTokens(proven)[0] as string);
    const signedIn = await platform.api.login(proven, password);
    expect((await platform.api.post('/api/auth/password/reset/', { email: proven })).status).toBe(202);
    const [reset] = linkTokens(proven, 'reset-password');
    expect(reset).toBeDefined();
    const to = `${unique('away')}@example.com`;
    await signedIn.post('/api/auth/email/change/', { email: to, current_password: password });
    expect((await follow(linkTokens(to)[0] as string)).status).toBe(200);
    // Whoever still reads the old inbox cannot take the account back with the link sent there before.
    const used = await platform.api.post('/api/auth/password/reset/confirm/', {
      token: reset,
      password: 'Orbit-Saffron-Kettle-19',
    });
    expect(used.status).toBe(400);
    expect(used.body.token).toBeDefined();
  });

  it('moves a username that was the old address along with it', async () => {
    const email = `${unique('named')}@example.com`;
    const made = await createUser(platform, { username: email, email });
    const to = `${unique('renamed')}@example.com`;
    await made.api.post('/api/auth/email/change/', { email: to, current_password: made.password });
    const [token] = linkTokens(to);
    expect((await follow(token as string)).status).toBe(200);
    const again = await platform.api.login(to, made.password);
    expect((await again.get('/api/cloud/users/me/')).body).toMatchObject({ username: to, email: to });
    // The old address is free for someone else, as username and as address.
    expect((await createUser(platform, { username: email, email })).user.email).toBe(email);
  });
});

describe('a second change of a proven address', () => {
  it('keeps the sessions: only a first proof ends them', async () => {
    const { api, password, ask } = await person();
    const first = `${unique('first')}@example.com`;
    await ask(first);
    await follow(linkTokens(first)[0] as string);
    const signedIn = await platform.api.login(first, password);
    const second = `${unique('second')}@example.com`;
    expect(
      (await signedIn.post('/api/auth/email/change/', { email: second, current_password: password })).status,
    ).toBe(202);
    const followed = await follow(linkTokens(second)[0] as string);
    expect(followed.body.detail).toBe(`Your e-mail address is now ${second}.`);
    expect((await signedIn.get('/api/cloud/users/me/')).body.email).toBe(second);
    expect((await api.get('/api/cloud/users/me/')).status).toBe(401);
  });
});
