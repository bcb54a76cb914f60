import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalKeySigner } from '../../shared/adapters/local/key-signer';
import { requireCurrentToken, tokenIsCurrent } from '../../shared/auth/sessions';
import { TokenService } from '../../shared/auth/tokens';
import { AuthenticationError } from '../../shared/errors';

const settings = {
  issuer: 'https://issuer.test',
  audience: 'platform-api',
  accessSeconds: 60,
  refreshSeconds: 600,
};
const tokens = new TokenService(
  new LocalKeySigner(join(mkdtempSync(join(tmpdir(), 'sessions-')), 'key.pem')),
  settings,
  () => new Date(),
);

describe('token version and family claims', () => {
  it('carries the user’s token version and the family in both tokens (the access token’s names the caller’s session)', async () => {
    const pair = await tokens.issuePair(
      { id: 7, username: 'ada', token_version: 3 },
      { family: 'fam-1', jti: 'j-1' },
    );
    await expect(tokens.verify(pair.access, 'access')).resolves.toMatchObject({
      tokenVersion: 3,
      family: 'fam-1',
    });
    await expect(tokens.verify(pair.refresh, 'refresh')).resolves.toMatchObject({
      tokenVersion: 3,
      family: 'fam-1',
      jti: 'j-1',
    });
  });

  it('issues version 0 for users that never changed their password', async () => {
    const access = await tokens.issue({ id: 7, username: 'ada' }, 'access');
    await expect(tokens.verify(access, 'access')).resolves.toMatchObject({ tokenVersion: 0 });
  });
});

describe('tokenIsCurrent', () => {
  it('accepts a token of the user’s current version only', () => {
    expect(tokenIsCurrent({ tokenVersion: 0 }, {})).toBe(true);
    expect(tokenIsCurrent({ tokenVersion: 2 }, { token_version: 2 })).toBe(true);
    expect(tokenIsCurrent({ tokenVersion: 1 }, { token_version: 2 })).toBe(false);
    expect(tokenIsCurrent({ tokenVersion: 3 }, { token_version: 2 })).toBe(false);
  });

  it('makes requireCurrentToken throw the invalid-token 401', () => {
    const user = {
      id: 1,
      uuid: 'u',
      username: 'ada',
      email: 'ada@example.com',
      first_name: '',
      last_name: '',
      is_active: true,
      is_superuser: false,
      date_joined: '2026-01-01T00:00:00.000Z',
      last_login: null,
      token_version: 1,
    };
    expect(() => requireCurrentToken({ tokenVersion: 0 }, user)).toThrow(AuthenticationError);
    expect(() => requireCurrentToken({ tokenVersion: 1 }, user)).not.toThrow();
  });
});
