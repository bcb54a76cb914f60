import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalKeySigner } from '../../shared/adapters/local/key-signer';
import {
  bearerToken,
  clockSkewSeconds,
  lowS,
  TokenService,
  verifiedTokensLimit,
} from '../../shared/auth/tokens';
import { AuthenticationError } from '../../shared/errors';

const settings = {
  issuer: 'https://issuer.test',
  audience: 'platform-api',
  accessSeconds: 60,
  refreshSeconds: 600,
};
const keyFile = join(mkdtempSync(join(tmpdir(), 'tokens-')), 'key.pem');
const user = { id: 42, username: 'ada' };

afterEach(() => {
  vi.useRealTimers();
});

describe('TokenService', () => {
  it('issues tokens that verify as their own type only', async () => {
    const tokens = new TokenService(new LocalKeySigner(keyFile), settings, () => new Date());
    const pair = await tokens.issuePair(user);
    await expect(tokens.verify(pair.access, 'access')).resolves.toMatchObject({ userId: 42, type: 'access' });
    await expect(tokens.verify(pair.refresh, 'refresh')).resolves.toMatchObject({
      userId: 42,
      type: 'refresh',
    });
    await expect(tokens.verify(pair.access, 'refresh')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('refuses an access token after its lifetime', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const tokens = new TokenService(new LocalKeySigner(keyFile), settings, () => new Date());
    const access = await tokens.issue(user, 'access');
    vi.setSystemTime(new Date('2026-01-01T00:00:59Z'));
    await expect(tokens.verify(access, 'access')).resolves.toBeDefined();
    vi.setSystemTime(new Date('2026-01-01T00:01:01Z'));
    await expect(tokens.verify(access, 'access')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('refuses a token signed by another key', async () => {
    const other = new TokenService(
      new LocalKeySigner(join(mkdtempSync(join(tmpdir(), 'tokens-')), 'other.pem')),
      settings,
      () => new Date(),
    );
    const tokens = new TokenService(new LocalKeySigner(keyFile), settings, () => new Date());
    await expect(tokens.verify(await other.issue(user, 'access'), 'access')).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('refuses a token for another audience', async () => {
    const signer = new LocalKeySigner(keyFile);
    const foreign = new TokenService(signer, { ...settings, audience: 'elsewhere' }, () => new Date());
    const tokens = new TokenService(signer, settings, () => new Date());
    await expect(tokens.verify(await foreign.issue(user, 'access'), 'access')).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('keeps the key pair across restarts', async () => {
    const first = await new LocalKeySigner(keyFile).publicJwk();
    const second = await new LocalKeySigner(keyFile).publicJwk();
    expect(second).toEqual(first);
  });
});

const p256Order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** Signs any header and payload with the test key, as an attacker holding a valid token could not. */
async function forge(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  flipS = false,
): Promise<string> {
  const signer = new LocalKeySigner(keyFile);
  const jwk = await signer.publicJwk();
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'ES256', typ: 'JWT', kid: jwk.kid, ...header })}.${encode(payload)}`;
  let signature = lowS(await signer.sign(Buffer.from(input)));
  if (flipS) {
    const s = BigInt(`0x${signature.subarray(32).toString('hex')}`);
    const high = Buffer.from((p256Order - s).toString(16).padStart(64, '0'), 'hex');
    signature = Buffer.concat([signature.subarray(0, 32), high]);
  }
  return `${input}.${signature.toString('base64url')}`;
}

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: settings.issuer,
    aud: settings.audience,
    sub: '5',
    username: 'ada',
    token_type: 'access',
    jti: 'a-jti',
    iat: now,
    exp: now + 60,
    ...overrides,
  };
}

describe('TokenService: strict verification', () => {
  const tokens = () => new TokenService(new LocalKeySigner(keyFile), settings, () => new Date());

  it('accepts a forged-by-the-test-key token of the exact issued shape (the baseline of the cases below)', async () => {
    await expect(tokens().verify(await forge({}, claims()), 'access')).resolves.toMatchObject({ userId: 5 });
  });

  it('refuses the high-S twin of a valid signature', async () => {
    const token = await forge({}, claims(), true);
    await expect(tokens().verify(token, 'access')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('issues only low-S signatures, whatever the signer returns', async () => {
    const service = tokens();
    for (let round = 0; round < 32; round++) {
      const token = await service.issue(user, 'access');
      const signature = Buffer.from(token.split('.')[2] as string, 'base64url');
      expect(BigInt(`0x${signature.subarray(32).toString('hex')}`) <= p256Order >> 1n).toBe(true);
      await expect(service.verify(token, 'access')).resolves.toMatchObject({ userId: 42 });
    }
  });

  it.each(['5.0', ' 5', '0x5', '05', '5e0', '-5', '+5', '', '12345678901234567'])(
    'refuses sub %j',
    async (sub) => {
      await expect(tokens().verify(await forge({}, claims({ sub })), 'access')).rejects.toBeInstanceOf(
        AuthenticationError,
      );
    },
  );

  it('refuses a numeric sub', async () => {
    await expect(tokens().verify(await forge({}, claims({ sub: 5 })), 'access')).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each([{ typ: 'at+jwt' }, { typ: undefined }, { typ: 'jwt ' }])('refuses header %j', async (header) => {
    await expect(tokens().verify(await forge(header, claims()), 'access')).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('refuses an iat in the future beyond the clock skew, accepts one within it', async () => {
    const now = Math.floor(Date.now() / 1000);
    const future = await forge({}, claims({ iat: now + clockSkewSeconds + 60 }));
    await expect(tokens().verify(future, 'access')).rejects.toBeInstanceOf(AuthenticationError);
    const near = await forge({}, claims({ iat: now + 5 }));
    await expect(tokens().verify(near, 'access')).resolves.toMatchObject({ userId: 5 });
  });

  it('refuses a token without iat or jti', async () => {
    await expect(
      tokens().verify(await forge({}, claims({ iat: undefined })), 'access'),
    ).rejects.toBeInstanceOf(AuthenticationError);
    await expect(
      tokens().verify(await forge({}, claims({ jti: undefined })), 'access'),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('refuses non-canonical base64url and extra parts', async () => {
    const token = await forge({}, claims());
    await expect(tokens().verify(`${token}=`, 'access')).rejects.toBeInstanceOf(AuthenticationError);
    await expect(tokens().verify(`${token}.x`, 'access')).rejects.toBeInstanceOf(AuthenticationError);
    const [head, body, signature] = token.split('.');
    const padded = `${head}.${body}.${(signature as string).replace(/-/g, '+').replace(/_/g, '/')}`;
    if (padded !== token)
      await expect(tokens().verify(padded, 'access')).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('bearerToken', () => {
  it('reads the token of a Bearer header, the scheme in any case', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer abc.def.ghi')).toBe('abc.def.ghi');
  });

  it.each([
    'Bearer abc.def.ghi junk',
    'Bearer',
    'Bearer ',
    'Basic abc',
    'Bearerabc',
    'Bearer a\tb',
    'Token abc',
  ])('refuses %j', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});

describe('TokenService: the verified-token cache', () => {
  /** A service remembering at most `limit` tokens, and a counter of the signature checks it makes. */
  function counted(limit?: number) {
    const tokens = new TokenService(new LocalKeySigner(keyFile), settings, () => new Date(), [], limit);
    const checks = vi.spyOn(
      tokens as unknown as { verifySignedToken: (token: string, type: string) => Promise<unknown> },
      'verifySignedToken',
    );
    return { tokens, checks };
  }

  it('checks the signature of a token once, then only its expiry', async () => {
    const { tokens, checks } = counted();
    const access = await tokens.issue(user, 'access');
    for (let i = 0; i < 5; i++) await tokens.verify(access, 'access');
    expect(checks).toHaveBeenCalledTimes(1);
  });

  it('never answers from the cache for another type, nor past the exp', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const { tokens } = counted();
    const access = await tokens.issue(user, 'access');
    await tokens.verify(access, 'access');
    await expect(tokens.verify(access, 'refresh')).rejects.toBeInstanceOf(AuthenticationError);
    vi.setSystemTime(new Date('2026-01-01T00:01:01Z'));
    await expect(tokens.verify(access, 'access')).rejects.toBeInstanceOf(AuthenticationError);
    // The expired entry is dropped, not kept until the bound pushes it out.
    expect(tokens.rememberedTokens).toBe(0);
  });

  it('holds at most its bound, dropping the oldest token first', async () => {
    const { tokens, checks } = counted(3);
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push(await tokens.issue(user, 'access'));
    for (const token of issued) await tokens.verify(token, 'access');
    expect(tokens.rememberedTokens).toBe(3);
    expect(checks).toHaveBeenCalledTimes(5);
    // The three newest are remembered; the two oldest need their signature checked again.
    for (const token of issued.slice(2)) await tokens.verify(token, 'access');
    expect(checks).toHaveBeenCalledTimes(5);
    await tokens.verify(issued[0] as string, 'access');
    expect(checks).toHaveBeenCalledTimes(6);
    expect(tokens.rememberedTokens).toBe(3);
  });

  it('has a default bound of 10,000 tokens', () => {
    expect(verifiedTokensLimit).toBe(10_000);
  });
});
