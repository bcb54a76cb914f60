import { describe, expect, it } from 'vitest';
import { passwordMinLength, passwordProblem } from '../../shared/accounts/password-policy';
import { generatePassword } from '../../shared/accounts/passwords';

describe('passwordProblem', () => {
  it('refuses passwords shorter than the minimum, counting characters rather than bytes', async () => {
    expect(await passwordProblem('Xq9-vT2!')).toBe(
      `Ensure this field has at least ${passwordMinLength} characters.`,
    );
    expect(await passwordProblem('é'.repeat(passwordMinLength - 1))).toContain('at least');
  });

  it('refuses passwords made only of spaces', async () => {
    expect(await passwordProblem(' '.repeat(20))).toBe('This password is blank.');
  });

  it.each(['12345678901', 'passwordpassword', 'qwertyuiop12', 'password-1234'])(
    'refuses the common or guessable password %s',
    async (password) => {
      expect(await passwordProblem(password)).toMatch(/^This password is too easy to guess/);
    },
  );

  it("refuses a password built from the user's own name or e-mail", async () => {
    expect(await passwordProblem('zorbaxquint9')).toBeUndefined();
    expect(await passwordProblem('zorbaxquint9', ['zorbaxquint', 'zq@example.com'])).toMatch(
      /too easy to guess/,
    );
    expect(await passwordProblem('zorbaxquint9', ['zq', 'zorbaxquint@example.com'])).toMatch(
      /too easy to guess/,
    );
  });

  it('accepts a long password that is hard to guess', async () => {
    expect(await passwordProblem('plum-Kettle-Orbit-7')).toBeUndefined();
  });

  it('accepts the generated passwords of the bootstrap superuser', async () => {
    for (let i = 0; i < 20; i++) expect(await passwordProblem(generatePassword(), ['admin'])).toBeUndefined();
  });

  it('judges a long password by its first characters: weak ones stay refused, whatever their length', async () => {
    expect(await passwordProblem('ab'.repeat(400))).toMatch(/too easy to guess/);
    // A strong tail does not save a weak start that fills the 64 characters scored (scored whole, it would).
    expect(await passwordProblem(`${'a'.repeat(64)}plum-Kettle-Orbit-7`)).toMatch(/too easy/);
    expect(await passwordProblem(`${'password'.repeat(8)}plum-Kettle-Orbit-7`)).toMatch(/too easy/);
    expect(await passwordProblem(`plum-Kettle-Orbit-7 ${'x'.repeat(900)}`)).toBeUndefined();
  });

  it.each(['P@ssw0rd1234', 'l3tm31nPl3as3', 'pa55w0rd-2024', 'm0nk3yb4n4n4', 'sh4d0w123456'])(
    'refuses the l33t spelling of a common password (%s)',
    async (password) => {
      expect(await passwordProblem(password)).toMatch(/too easy to guess/);
    },
  );
});
