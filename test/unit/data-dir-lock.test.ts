import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../shared/host/local/data-dir-lock';
import { streamProgress } from '../../shared/host/local/progress';
import { DataDirLockedError } from '../../shared/host/local/start-errors';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('lockDataDir', () => {
  it('creates the directory and a lock file holding the pid, and removes it on release', () => {
    dir = join(mkdtempSync(join(tmpdir(), 'lock-')), 'data');
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe(`${process.pid}\n`);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    lock.release();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    lockDataDir(dir).release();
  });

  it('takes over a lock file that names no process', () => {
    dir = mkdtempSync(join(tmpdir(), 'lock-'));
    writeFileSync(join(dir, '.lock'), 'not a pid');
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });

  it('leaves alone a lock that another process took over since', () => {
    dir = mkdtempSync(join(tmpdir(), 'lock-'));
    const lock = lockDataDir(dir);
    writeFileSync(join(dir, '.lock'), '1\n');
    lock.release();
    expect(readFileSync(join(dir, '.lock'), 'utf8')).toBe('1\n');
  });
});

describe('streamProgress', () => {
  it('writes one line per step, with its duration, or that it failed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'progress-'));
    let text = '';
    let clock = 0;
    const progress = streamProgress(
      (chunk) => {
        text += chunk;
      },
      () => clock,
    );
    expect(
      await progress.step('initialising embedded PostgreSQL', async () => {
        clock += 9800;
        return 42;
      }),
    ).toBe(42);
    await expect(
      progress.step('applying the SQL migrations', () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    expect(text).toBe(
      'initialising embedded PostgreSQL… done in 9.8 s\napplying the SQL migrations… failed\n',
    );
  });
});
