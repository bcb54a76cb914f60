import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A real process of the local runtime (`npm start`, bin/local.ts, the shell commands of bin/), its output collected,
 * with waits on that output. `detached` starts it as the leader of a process group of its own, as a shell starts a
 * foreground job, so that a signal can be sent to the whole group as a terminal's Ctrl-C does.
 */
export function startProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  options: { detached?: boolean; stdin?: string } = {},
) {
  const child = spawn(command, args, {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  }) as ChildProcessWithoutNullStreams;
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  let stdout = '';
  let stderr = '';
  const waiters: { test: () => boolean; done: () => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters])
      if (waiter.test()) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.done();
      }
  };
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
    check();
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  /** Resolves when the output satisfies `test` (an event: each chunk of output), fails if the process exits first. */
  const until = (test: () => boolean) =>
    new Promise<void>((done, fail) => {
      if (test()) return done();
      waiters.push({ test, done });
      exited.then(({ code, signal }) => fail(new Error(`exited (${code ?? signal}) first: ${stderr}`)));
    });
  const listening = async () => {
    await until(() => /Tenantbase listening on (\S+)/.test(stdout));
    return /Tenantbase listening on (\S+)/.exec(stdout)?.[1] as string;
  };
  return { child, exited, until, listening, output: () => ({ stdout, stderr }) };
}

export type LocalProcess = ReturnType<typeof startProcess>;

/** The command lines of the running processes (the process table). */
export function processTable(): { pid: number; command: string }[] {
  if (!existsSync('/proc/self/cmdline'))
    return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => ({ pid: Number(match[1]), command: match[2] as string }));
  const rows: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      rows.push({
        pid: Number(entry),
        command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '),
      });
    } catch {
      // gone meanwhile
    }
  }
  return rows;
}

/** Whether a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The Dynoxide processes serving the DynamoDB file of `dataDir`. */
export function dynoxidesOf(dataDir: string): number[] {
  const file = join(dataDir, 'dynamodb.sqlite');
  return processTable()
    .filter(
      ({ command }) => command.includes('dynoxide') && command.includes(`serve `) && command.includes(file),
    )
    .filter(({ command }) => !command.includes(' -e '))
    .map(({ pid }) => pid);
}

/** The embedded PostgreSQL child processes serving the PGlite directory of `dataDir`. */
export function postgresChildrenOf(dataDir: string): number[] {
  return processTable()
    .filter(
      ({ command }) => command.includes('postgres-child.mjs') && command.includes(join(dataDir, 'pglite')),
    )
    .map(({ pid }) => pid);
}

/** Checks `test` up to `tries` times, waiting for `event` (here: a timer tick) between tries. */
export async function eventually(test: () => boolean, tries: number): Promise<boolean> {
  for (let attempt = 0; attempt < tries; attempt++) {
    if (test()) return true;
    await new Promise((next) => setTimeout(next, 100));
  }
  return test();
}

/**
 * The environment a spawned local server starts with, as a newcomer's `npm start`: this process's, without any
 * database or DynamoDB setting (the test run's own database, or cloud settings a file before this one in the
 * same worker left behind), so it runs on its own embedded stores.
 */
export function newcomerEnv(): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('DATABASE_') && key !== 'DYNAMODB_ENDPOINT',
    ),
  );
}

/**
 * `npm start` (bin/local.ts) as a real process on a port of its own, from a newcomer's environment: its exit, the
 * address it listens on once it says so (rejected if it exits first, with what it wrote to stderr), its stderr.
 */
export function startLocalServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    env: { ...newcomerEnv(), LOG_LEVEL: 'silent', PORT: '0', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams;
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const listening = new Promise<string>((done, fail) => {
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
      const url = /Tenantbase listening on (\S+)/.exec(stdout)?.[1];
      if (url) done(url);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    exited.then(({ code, signal }) => fail(new Error(`exited (${code ?? signal}) first: ${stderr}`)));
  });
  return { child, exited, listening, stderr: () => stderr };
}
