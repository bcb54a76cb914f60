import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalKeySigner } from '../../shared/adapters/local/key-signer';
import { TokenService } from '../../shared/auth/tokens';
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
