import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataDirLockedError } from './start-errors';

export interface DataDirLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file if it is still this process's. */
  release(): void;
}

const lockFileName = '.lock';

/** Whether a process with this pid exists. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a lock file names, or undefined when it is unreadable or malformed (edited by hand). */
function holderOf(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the lock file with its content in one step: written aside, then hard-linked into place, which fails when
 * the name exists (like O_EXCL), so no reader ever sees a lock file without its pid.
 */
function createExclusive(path: string): boolean {
  const aside = `${path}.${process.pid}`;
  writeFileSync(aside, `${process.pid}\n`);
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(aside);
  }
}

/**
 * Takes the data directory for this process: creates `<dataDir>/.lock` exclusively, holding the pid, so a
 * second platform on the same directory cannot open the same store files. A lock whose process is gone (a crash,
 * a kill -9) is taken over. Released by `release()`, and on process exit whatever the cause.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, lockFileName);
  // Two tries: the second follows the removal of a stale lock; losing that race to another starter is a refusal.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createExclusive(path)) return held(path);
    const holder = holderOf(path);
    if (holder !== undefined && (holder === process.pid || isRunning(holder)))
      throw new DataDirLockedError(resolve(dataDir), holder);
    try {
      unlinkSync(path);
    } catch {
      // Someone else removed it first; try to create it again.
    }
  }
  throw new DataDirLockedError(resolve(dataDir), holderOf(path) ?? 0);
}

function held(path: string): DataDirLock {
  const release = () => {
    process.off('exit', release);
    if (holderOf(path) !== process.pid) return;
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  process.on('exit', release);
  return { path, release };
}
