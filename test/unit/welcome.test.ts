import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord, signInCommands } from '../../shared/host/local/welcome';

/**
 * The sign-in commands npm start prints, run by bash with `curl` replaced by a function that answers the body it
 * was given as the access token: what the shell really sends, whatever characters the password has.
 */
function sentBody(lines: string[], env: Record<string, string> = {}): unknown {
  const fakeCurl = `curl() { while [ $# -gt 0 ]; do if [ "$1" = -d ]; then node -e 'process.stdout.write(JSON.stringify({access: process.argv[1]}))' "$2"; fi; shift; done; }`;
  const script = [fakeCurl, ...lines.slice(0, 2), 'printf %s "$TOKEN"'].join('\n');
  const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

const awkward = `it's "quoted" \\ $HOME \`x\` !`;

describe('the sign-in commands of npm start', () => {
  it('send the password filled in, as it is', () => {
    const lines = signInCommands('http://127.0.0.1:3000', 'admin', awkward);
    expect(lines[0]).toContain('http://127.0.0.1:3000/api/auth/jwt/token/');
    expect(sentBody(lines)).toEqual({ username: 'admin', password: awkward });
  });

  it('without it, send ADMIN_PASSWORD of the shell, as it is, and never print it', () => {
    const lines = signInCommands('http://127.0.0.1:3000', 'admin', undefined);
    expect(sentBody(lines, { ADMIN_PASSWORD: awkward })).toEqual({ username: 'admin', password: awkward });
    expect(lines.join('\n')).not.toContain(awkward);
  });

  it('quote a word for the shell', () => {
    const run = spawnSync('bash', ['-c', `printf %s ${shellWord(awkward)}`], { encoding: 'utf8' });
    expect(run.stdout).toBe(awkward);
  });
});
