import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../shared/accounts/passwords';

describe('passwords', () => {
  it('verifies the right password and refuses another', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsf', hash)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('refuses malformed and missing hashes', async () => {
    expect(await verifyPassword('x', undefined)).toBe(false);
    expect(await verifyPassword('x', 'md5$abc')).toBe(false);
  });
});
