import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/accounts/keys';
import { ApiClient } from '../support/client';
import { strictClock } from '../support/clock';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createUser } from '../support/tenant';

/** Two-factor sign-in (issue 39, items 5 and 6): TOTP enrolment, the mfa_token step, recovery codes, removal. */

const { clock, advance } = strictClock();
let platform: TestPlatform;
let ownOrigin: string;
/** Wrong codes an account may send before its codes are throttled (more than one mfa_token survives). */
const accountLimit = 7;

beforeAll(async () => {
  platform = await startTestPlatform(
    { LOGIN_MAX_FAILURES_PER_ACCOUNT: String(accountLimit) },
    { clock },
    { dataPlane: false },
  );
  ownOrigin = new URL(platform.baseUrl).origin;
});
afterAll(async () => {
  await platform.stop();
});

const anonymous = () => new ApiClient(platform.baseUrl);

/** The code an authenticator app shows at the platform's time, `steps` steps from now (computed with otpauth). */
function codeOf(secret: string, steps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: clock().getTime() + steps * 30_000 });
}

/** Moves the platform's clock to the next time step, so that a new code is accepted. */
const nextStep = () => advance(30_000);

async function enrolled() {
  const account = await createUser(platform);
  const enrolment = await account.api.post('/api/auth/mfa/totp/');
  expect(enrolment.status).toBe(200);
  const secret: string = enrolment.body.secret;
  const confirmed = await account.api.post('/api/auth/mfa/totp/confirm/', { code: codeOf(secret) });
  expect(confirmed.status).toBe(200);
  nextStep();
  return { ...account, secret, recoveryCodes: confirmed.body.recovery_codes as string[] };
}

async function firstStep(username: string, password: string) {
  const response = await anonymous().post('/api/auth/jwt/token/', { username, password });
  expect(response.status).toBe(401);
  return response.body.mfa_token as string;
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString());

describe('enrolling a TOTP factor', () => {
  it('answers the secret, an otpauth URI and an SVG QR code, and keeps the secret only sealed', async () => {
    const { user, api } = await createUser(platform);
    const response = await api.post('/api/auth/mfa/totp/');
    expect(response.status).toBe(200);
    expect(response.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(response.body.otpauth_url).toMatch(
      new RegExp(`^otpauth://totp/Tenantbase:${user.username}\\?.*secret=${response.body.secret}`),
    );
    expect(response.body.qr_svg).toMatch(/^<svg[^>]*>.*<\/svg>\s*$/s);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const item = await platform.deps.store.doc.send(
      new GetCommand({ TableName: platform.deps.store.table, Key: keys.user(user.id) }),
    );
    expect(JSON.stringify(item.Item)).not.toContain(response.body.secret);
    expect(item.Item?.mfa_totp_pending?.ciphertext).toEqual(expect.any(String));
    expect((await api.get('/api/auth/mfa/')).body).toEqual({
      methods: [],
      totp: null,
      enrolling: true,
      recovery_codes_left: 0,
    });
    // Until confirmed, the password alone still signs in.
    const password = await anonymous().post('/api/auth/jwt/token/', {
      username: user.username,
      password: 'Velvet-Harbor-Quill-42',
    });
    expect(password.status).toBe(200);
  });

  it('refuses a wrong code naming the field, then confirms with a right one: ten distinct recovery codes', async () => {
    const { api } = await createUser(platform);
    const { secret } = (await api.post('/api/auth/mfa/totp/')).body;
    const wrong = await api.post('/api/auth/mfa/totp/confirm/', { code: codeOf(secret, 5) });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: ['The code is not correct.'] });
    const right = await api.post('/api/auth/mfa/totp/confirm/', { code: codeOf(secret) });
    expect(right.status).toBe(200);
    expect(right.body.recovery_codes).toHaveLength(10);
    expect(new Set(right.body.recovery_codes).size).toBe(10);
    const status = await api.get('/api/auth/mfa/');
    expect(status.body).toMatchObject({ methods: ['totp'], enrolling: false, recovery_codes_left: 10 });
    expect((await api.post('/api/auth/mfa/totp/')).status).toBe(409);
  });

  it('answers 401 to a request without a signed-in user', async () => {
    expect((await anonymous().post('/api/auth/mfa/totp/')).status).toBe(401);
    expect((await anonymous().get('/api/auth/mfa/')).status).toBe(401);
  });
});

describe('signing in with a second factor', () => {
  it('answers 401 mfa_required with an mfa_token and no tokens to the right password', async () => {
    const { user, password } = await enrolled();
    const response = await anonymous().post('/api/auth/jwt/token/', { username: user.username, password });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      detail: expect.any(String),
      code: 'mfa_required',
      mfa_token: expect.any(String),
      methods: ['totp', 'recovery_code'],
    });
    // The mfa_token is no access token.
    expect((await anonymous().withToken(response.body.mfa_token).get('/api/cloud/users/me/')).status).toBe(
      401,
    );
    expect(
      (await anonymous().post('/api/auth/jwt/refresh/', { refresh: response.body.mfa_token })).status,
    ).toBe(401);
  });

  it('a wrong password stays the plain 401, with no mfa_token (nothing tells the account has a factor)', async () => {
    const { user } = await enrolled();
    const response = await anonymous().post('/api/auth/jwt/token/', {
      username: user.username,
      password: 'Not-The-Password-11',
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'No active account found with the given credentials' });
  });

  it('trades the mfa_token and a code for {access, refresh, user}, with amr saying how, kept by a refresh', async () => {
    const { user, password, secret } = await enrolled();
    const mfaToken = await firstStep(user.username, password);
    const response = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: mfaToken,
      code: codeOf(secret),
    });
    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ id: user.id, username: user.username });
    expect(claimsOf(response.body.access).amr).toEqual(['pwd', 'otp', 'mfa']);
    expect((await anonymous().withToken(response.body.access).get('/api/cloud/users/me/')).status).toBe(200);
    const refreshed = await anonymous().post('/api/auth/jwt/refresh/', { refresh: response.body.refresh });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.access).amr).toEqual(['pwd', 'otp', 'mfa']);
    // A password-only sign-in says so too.
    const plain = await createUser(platform);
    const tokens = await anonymous().post('/api/auth/jwt/token/', {
      username: plain.user.username,
      password: plain.password,
    });
    expect(claimsOf(tokens.body.access).amr).toEqual(['pwd']);
  });

  it('accepts each mfa_token once, and each code (time step) once', async () => {
    const { user, password, secret } = await enrolled();
    const code = codeOf(secret);
    const mfaToken = await firstStep(user.username, password);
    expect(
      (await anonymous().post('/api/auth/mfa/authenticate/', { mfa_token: mfaToken, code })).status,
    ).toBe(200);
    const again = await anonymous().post('/api/auth/mfa/authenticate/', { mfa_token: mfaToken, code });
    expect(again.status).toBe(401);
    expect(again.body.code).toBe('mfa_token_not_valid');
    const replay = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: await firstStep(user.username, password),
      code,
    });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ detail: 'The code is not correct.', code: 'mfa_code_invalid' });
  });

  it('accepts a code of the step before or after, not two steps away', async () => {
    const { user, password, secret } = await enrolled();
    const mfaToken = await firstStep(user.username, password);
    const far = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: mfaToken,
      code: codeOf(secret, 2),
    });
    expect(far.status).toBe(401);
    const next = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: mfaToken,
      code: codeOf(secret, 1),
    });
    expect(next.status).toBe(200);
    nextStep();
    nextStep();
    const before = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: await firstStep(user.username, password),
      code: codeOf(secret, -1),
    });
    // The step before now is the step just used (+1 of then): refused as a replay; one more step and it passes.
    expect(before.status).toBe(401);
    nextStep();
    const later = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: await firstStep(user.username, password),
      code: codeOf(secret, -1),
    });
    expect(later.status).toBe(200);
  });

  it('ends an mfa_token after five wrong codes, even for the right one', async () => {
    const { user, password, secret } = await enrolled();
    const mfaToken = await firstStep(user.username, password);
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const wrong = await anonymous().post('/api/auth/mfa/authenticate/', {
        mfa_token: mfaToken,
        code: codeOf(secret, 10 + i),
      });
      answers.push(`${wrong.status} ${wrong.body.code}`);
    }
    expect(answers).toEqual([...Array(4).fill('401 mfa_code_invalid'), '401 mfa_token_not_valid']);
    const right = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: mfaToken,
      code: codeOf(secret),
    });
    expect(right.status).toBe(401);
    expect(right.body.code).toBe('mfa_token_not_valid');
  });

  it('throttles an account’s codes across mfa_tokens with 429 and Retry-After', async () => {
    const { user, password, secret } = await enrolled();
    for (let i = 0; i < accountLimit; i++) {
      const mfaToken = await firstStep(user.username, password);
      const wrong = await anonymous().post('/api/auth/mfa/authenticate/', {
        mfa_token: mfaToken,
        code: codeOf(secret, 10),
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: await firstStep(user.username, password),
      code: codeOf(secret),
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('cannot sign in as another account: an mfa_token is checked against its own account’s factor only', async () => {
    const alice = await enrolled();
    const bob = await enrolled();
    const aliceToken = await firstStep(alice.user.username, alice.password);
    const response = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: aliceToken,
      code: codeOf(bob.secret),
    });
    // Bob's code is no code of Alice's (unless both secrets give the same six digits: 1 in 10^6 per step).
    if (codeOf(bob.secret) !== codeOf(alice.secret)) expect(response.status).toBe(401);
    const forged = `${aliceToken.split('.')[0]}.${Buffer.from(
      JSON.stringify({ ...claimsOf(aliceToken), sub: String(bob.user.id) }),
    ).toString('base64url')}.${aliceToken.split('.')[2]}`;
    const swapped = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: forged,
      code: codeOf(bob.secret),
    });
    expect(swapped.status).toBe(401);
    expect(swapped.body.code).toBe('mfa_token_not_valid');
  });

  it('accepts each recovery code once', async () => {
    const { user, password, recoveryCodes, api } = await enrolled();
    const [first] = recoveryCodes;
    const used = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: await firstStep(user.username, password),
      recovery_code: first?.toUpperCase(),
    });
    expect(used.status).toBe(200);
    expect(claimsOf(used.body.access).amr).toEqual(['pwd', 'recovery_code', 'mfa']);
    const again = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: await firstStep(user.username, password),
      recovery_code: first,
    });
    expect(again.status).toBe(401);
    expect((await api.get('/api/auth/mfa/')).body.recovery_codes_left).toBe(9);
  });

  it('asks for exactly one of code and recovery_code, naming the field', async () => {
    const { user, password } = await enrolled();
    const mfaToken = await firstStep(user.username, password);
    const neither = await anonymous().post('/api/auth/mfa/authenticate/', { mfa_token: mfaToken });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ code: ['Send either code or recovery_code.'] });
  });

  it('does the same for the browser session: 401 mfa_required, then a cookie from /api/auth/session/mfa/', async () => {
    const { user, password, secret } = await enrolled();
    const headers = { origin: ownOrigin };
    const first = await anonymous().post(
      '/api/auth/session/',
      { username: user.username, password },
      { headers },
    );
    expect(first.status).toBe(401);
    expect(first.body.code).toBe('mfa_required');
    expect(first.headers.get('set-cookie')).toBeNull();
    // A session's mfa_token does not give tokens, nor a JWT one a session.
    const crossed = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: first.body.mfa_token,
      code: codeOf(secret),
    });
    expect(crossed.status).toBe(401);
    const second = await anonymous().post(
      '/api/auth/session/mfa/',
      { mfa_token: first.body.mfa_token, code: codeOf(secret) },
      { headers },
    );
    expect(second.status).toBe(200);
    const cookie = second.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^sessionid=/);
    const me = await anonymous().get('/api/cloud/users/me/', {
      headers: { cookie: cookie.split(';')[0] ?? '' },
    });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });
});

describe('removing the factor', () => {
  it('needs the right password or a current code, then ends earlier tokens and signs in with the password alone', async () => {
    const { user, password, secret } = await enrolled();
    const mfaToken = await firstStep(user.username, password);
    const signedIn = await anonymous().post('/api/auth/mfa/authenticate/', {
      mfa_token: mfaToken,
      code: codeOf(secret),
    });
    const api = anonymous().withToken(signedIn.body.access);
    const wrong = await api.request('DELETE', '/api/auth/mfa/totp/', { password: 'Not-The-Password-11' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ password: ['The password is not correct.'] });
    const removed = await api.request('DELETE', '/api/auth/mfa/totp/', { password });
    expect(removed.status).toBe(204);
    expect((await api.get('/api/cloud/users/me/')).status).toBe(401);
    const plain = await anonymous().post('/api/auth/jwt/token/', { username: user.username, password });
    expect(plain.status).toBe(200);
  });

  it('with a current code', async () => {
    const { api, secret } = await enrolled();
    const removed = await api.request('DELETE', '/api/auth/mfa/totp/', { code: codeOf(secret) });
    expect(removed.status).toBe(204);
  });
});
