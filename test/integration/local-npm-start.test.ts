import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  dynoxidesOf,
  eventually,
  isAlive,
  type LocalProcess,
  postgresChildrenOf,
  startProcess,
} from '../support/local-process';

/**
 * `npm start` as a newcomer, a supervisor (systemd, a process manager) or a terminal runs it: npm's own process,
 * signalled by its pid or, as a terminal's Ctrl-C does, with its whole process group; and the commands it prints,
 * run as printed. On the embedded stores only (DATABASE_URL is not passed on), so in the embedded pass only.
 */
const embeddedRunOnly = Boolean(inject('databaseUrl'));

const dataDir = mkdtempSync(join(tmpdir(), 'local-npm-start-'));
const root = join(import.meta.dirname, '..', '..');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The environment of a shell on this machine: nothing of the test run's stores or of its superuser. */
function shellEnv(env: Record<string, string> = {}): Record<string, string | undefined> {
  const {
    DATABASE_URL: _database,
    DYNAMODB_ENDPOINT: _dynamo,
    ADMIN_PASSWORD: _password,
    TABLE_NAME: _table,
    ...inherited
  } = process.env;
  return { ...inherited, ...env };
}

/** `npm start` in the checkout, leader of its own process group (a shell's foreground job). */
function npmStart(): LocalProcess {
  return startProcess(
    'npm',
    ['start', '--prefix', root],
    shellEnv({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
    {
      detached: true,
    },
  );
}

/** The pid holding the data directory: the server's own process, whatever ran it. */
function lockHolder(): number {
  return Number(readFileSync(join(dataDir, '.lock'), 'utf8').trim());
}

/** Waits for the whole welcome: the base URL, then the commands, of which the call with the token comes last. */
async function welcome(started: LocalProcess): Promise<string> {
  const base = await started.listening();
  await started.until(() => started.output().stdout.includes('/api/cloud/users/me/'));
  return base;
}

/** The indented lines under "Try" in what npm start printed, as one shell script. */
function printedCommands(stdout: string): string {
  const block = stdout.split(/^Try[^\n]*:\n/m)[1] ?? '';
  const lines: string[] = [];
  for (const line of block.split('\n')) {
    if (!line.startsWith('  ')) break;
    lines.push(line.slice(2));
  }
  return lines.join('\n');
}

/** `npm run reset-password -- <args>` on the test's data directory, as a real process. */
function resetPassword(args: string[], stdin?: string) {
  return spawnSync('npm', ['run', '--silent', '--prefix', root, 'reset-password', '--', ...args], {
    env: shellEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
    encoding: 'utf8',
    input: stdin ?? '',
    timeout: 120_000,
  });
}

/** Runs `script` with bash, as a person pasting it into another shell would. */
function bash(script: string, env: Record<string, string> = {}) {
  return spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
    env: shellEnv(env),
    encoding: 'utf8',
    timeout: 60_000,
  });
}

/** Nothing of the server is left: its process, the embedded stores' processes, the lock. */
async function nothingLeft(serverPid: number, started: LocalProcess): Promise<void> {
  // Up to 30 s (300 tries) for the processes to go; it takes a fraction of a second.
  const output = () => started.output().stderr;
  expect(await eventually(() => !isAlive(serverPid), 300), output()).toBe(true);
  expect(await eventually(() => dynoxidesOf(dataDir).length === 0, 300), output()).toBe(true);
  expect(await eventually(() => postgresChildrenOf(dataDir).length === 0, 300), output()).toBe(true);
  expect(existsSync(join(dataDir, '.lock'))).toBe(false);
}

function killAll(started: LocalProcess | undefined, serverPid: number | undefined) {
  if (started?.child.pid !== undefined && isAlive(started.child.pid))
    process.kill(started.child.pid, 'SIGKILL');
  if (serverPid !== undefined && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
}

const stopped = 'HTTP server and stores closed, data directory released.';

describe.skipIf(embeddedRunOnly)('npm start, its signals and its printed commands', () => {
  let first: LocalProcess | undefined;
  let firstServer: number | undefined;
  let generated = '';

  it('the first start prints the commands to sign in with the generated password, and they run as printed', async () => {
    first = npmStart();
    const base = await welcome(first);
    firstServer = lockHolder();
    const { stdout } = first.output();
    generated = /^ {2}password: (\S+)$/m.exec(stdout)?.[1] ?? '';
    expect(generated).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const script = printedCommands(stdout);
    expect(script).toContain(base);
    const run = bash(script);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ username: 'admin', is_superuser: true });
  }, 180_000);

  it('SIGTERM to the npm process stops the server as its own SIGTERM does, and leaves nothing running', async () => {
    if (!first || firstServer === undefined) throw new Error('the first start did not run');
    try {
      process.kill(first.child.pid as number, 'SIGTERM');
      expect(await first.exited).toEqual({ code: 0, signal: null });
      expect(first.output().stderr).toContain(`SIGTERM: stopping… ${stopped}`);
      await nothingLeft(firstServer, first);
    } finally {
      killAll(first, firstServer);
    }
  }, 180_000);

  let firstPassword = '';

  it('npm run reset-password -- admin, with npm start stopped, sets a new password: given on stdin or generated', async () => {
    firstPassword = generated;
    const given = resetPassword(['admin', '--password-stdin'], 'Copper-Lantern-Meadow-93\n');
    expect(given.stderr).toBe('');
    expect(given.stdout).toBe(
      'Password of admin <admin@localhost.localdomain> changed.\nTheir earlier sessions and refresh tokens are ended.\n',
    );
    expect(given.status).toBe(0);
    const reset = resetPassword(['admin']);
    expect(reset.status, reset.stderr).toBe(0);
    generated =
      /^New password for admin <admin@localhost.localdomain> \(shown once\): (\S+)$/m.exec(
        reset.stdout,
      )?.[1] ?? '';
    expect(generated).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(existsSync(join(dataDir, '.lock'))).toBe(false);
    const unknown = resetPassword(['nobody']);
    expect(unknown).toMatchObject({
      status: 1,
      stderr: 'No user nobody: give a username or an e-mail address.\n',
    });
  }, 180_000);

  it('a later start prints commands that run with the password in ADMIN_PASSWORD; a Ctrl-C stops it once', async () => {
    const again = npmStart();
    let server: number | undefined;
    try {
      await welcome(again);
      server = lockHolder();
      const { stdout } = again.output();
      expect(stdout).not.toMatch(/^ {2}password:/m);
      const run = bash(printedCommands(stdout), { ADMIN_PASSWORD: generated });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ username: 'admin' });
      // The password of the first start no longer signs in.
      const old = bash(printedCommands(stdout), { ADMIN_PASSWORD: firstPassword });
      expect(JSON.parse(old.stdout)).not.toHaveProperty('username');
      // While npm start runs, the reset is refused: the data directory is the server's.
      const refused = resetPassword(['admin']);
      expect(refused).toMatchObject({
        status: 1,
        stderr:
          `The data directory ${dataDir} is in use by process ${server} (npm start?): stop it, then run npm run ` +
          'reset-password again.\n',
      });
      // A terminal's Ctrl-C: SIGINT to every process of the foreground job, npm's among them.
      process.kill(-(again.child.pid as number), 'SIGINT');
      expect(await again.exited).toEqual({ code: 0, signal: null });
      const { stderr } = again.output();
      expect(stderr).toContain(`SIGINT: stopping… ${stopped}`);
      // One Ctrl-C is one request to stop: the server drained, it did not take it for a second one.
      expect(stderr).not.toContain('exiting at once');
      await nothingLeft(server, again);
    } finally {
      killAll(again, server);
    }
  }, 180_000);

  it('SIGINT to the npm process alone stops the server once, as its own SIGINT does', async () => {
    const started = npmStart();
    let server: number | undefined;
    try {
      await welcome(started);
      server = lockHolder();
      process.kill(started.child.pid as number, 'SIGINT');
      expect(await started.exited).toEqual({ code: 0, signal: null });
      expect(started.output().stderr).toContain(`SIGINT: stopping… ${stopped}`);
      expect(started.output().stderr).not.toContain('exiting at once');
      await nothingLeft(server, started);
    } finally {
      killAll(started, server);
    }
  }, 180_000);

  it('when npm ends without relaying a signal (SIGKILL, a closed terminal), the server stops by itself', async () => {
    const started = npmStart();
    let server: number | undefined;
    try {
      await welcome(started);
      server = lockHolder();
      process.kill(started.child.pid as number, 'SIGKILL');
      await nothingLeft(server, started);
      expect(started.output().stderr).toContain(
        `npm start (process ${started.child.pid}) has ended: stopping… ${stopped}`,
      );
    } finally {
      killAll(started, server);
    }
  }, 180_000);
});
