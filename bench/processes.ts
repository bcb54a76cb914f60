import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Child processes of the bench (the project server, the floor server) and what /proc says about them. Children
 * run in their own process group so that stopping one also stops what it started (the embedded DynamoDB), and
 * every child still alive when the bench exits is killed.
 */

export interface Server {
  readonly name: string;
  readonly pid: number;
  readonly baseUrl: string;
  stop(): Promise<void>;
}

const alive = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

process.on('exit', () => {
  for (const child of alive) killGroup(child, 'SIGKILL');
});

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node <args>` and resolves once a line of its output matches `ready`; fails when it exits first or is
 * not ready within `timeoutMs`. Its output is kept (last lines) for the error message, never printed.
 */
export function startServer(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  baseUrl: string,
  timeoutMs = 60_000,
): Promise<Server> {
  const child = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  let output = '';
  const stop = () => stopChild(child);
  return new Promise<Server>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop();
      reject(new Error(`${name} ${why}; its last output:\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => fail(`was not ready within ${timeoutMs / 1000} s`), timeoutMs);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      if (ready.test(output) && child.pid !== undefined) {
        clearTimeout(timer);
        child.removeListener('exit', onExit);
        resolve({ name, pid: child.pid, baseUrl, stop });
      }
    };
    const onExit = (code: number | null) => fail(`exited with ${code}`);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Starts `command <args>` in `cwd` and resolves once `probe` (polled every half second) says the server answers,
 * for servers that print nothing when ready at a quiet log level (Directus). Output is kept as startServer does.
 */
export function startProbedServer(
  name: string,
  command: { file: string; args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv },
  baseUrl: string,
  probe: () => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<Server> {
  const { file, args, cwd, env } = command;
  const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = () => stopChild(child);
  const deadline = Date.now() + timeoutMs;
  const poll = async (): Promise<Server> => {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `${name} exited with ${child.exitCode ?? child.signalCode}; its last output:\n${output.slice(-2000)}`,
        );
      if (await probe().catch(() => false)) return { name, pid: child.pid as number, baseUrl, stop };
      if (Date.now() > deadline) {
        await stop();
        throw new Error(
          `${name} was not ready within ${timeoutMs / 1000} s; its last output:\n${output.slice(-2000)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  return poll();
}

/** SIGTERM to the child's group, SIGKILL after five seconds. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      // The group may still hold a grandchild that ignored SIGTERM.
      killGroup(child, 'SIGKILL');
      resolve();
    });
    killGroup(child, 'SIGTERM');
  });
}

/** Clock ticks per second of /proc/<pid>/stat times. */
export const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat after the command name (in parentheses, may hold spaces): state first. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time (user + system) the process has used so far, in milliseconds. */
export function cpuMillis(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/**
 * The postmaster of the PostgreSQL on this machine that listens on `port` (started with `-p <port>`, as
 * `.ci/postgres.sh` starts it), if there is one: the bench then also reports the database's CPU per request.
 */
export function findPostmaster(port: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!args[0]?.endsWith('/postgres')) continue;
      const flag = args.indexOf('-p');
      if (flag >= 0 && args[flag + 1] === String(port)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/**
 * CPU time (ms) a PostgreSQL instance has used so far: the postmaster, its live children (backends, background
 * workers), and children that have ended (the postmaster reaps them, so their time is in its `cutime`/`cstime`).
 */
export function databaseCpuMillis(postmaster: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      const pid = Number(entry);
      if (pid === postmaster) ticks += Number(fields[13]) + Number(fields[14]);
      if (pid === postmaster || Number(fields[1]) === postmaster)
        ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return (ticks * 1000) / clockTicks;
}

/** Resident memory of the process in MB: now (`VmRSS`) and the peak since start or the last reset (`VmHWM`). */
export function memory(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** Resets the process's peak RSS to its current RSS (Linux `clear_refs` 5), so VmHWM covers what follows. */
export function resetPeakMemory(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
