import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registry } from '../../functions/registry';
import { loadConfig } from '../../shared/config';
import { type LocalPlatform, startLocalPlatform } from '../../shared/host/local/runtime';
import { DataDirLockedError, PortInUseError } from '../../shared/host/local/start-errors';
import { newcomerEnv } from '../support/local-process';
import { databaseEnv } from '../support/platform';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'local-runtime-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const template = inject('pgliteTemplate');

/** A persisting platform (the `npm start` case) in `dataDir`, on the run's DynamoDB and the PGlite dump. */
function startPersisting(dataDir: string, env: Record<string, string> = {}): Promise<LocalPlatform> {
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TABLE_NAME: `local-${Math.random().toString(36).slice(2)}`,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    ADMIN_PASSWORD: 'admin-password-1',
    ...databaseEnv(inject('databaseUrl')),
    ...env,
  });
  return startLocalPlatform(config, registry, {
    ...(template ? { postgresTemplate: template } : {}),
  });
}

/** The pid of a process that has exited: what a lock left by a crash holds. */
function deadPid(): Promise<number> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.once('exit', () => done(child.pid as number));
  });
}

function occupyPort(): Promise<{ server: Server; port: number }> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      done({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

describe('the exclusive lock on DATA_DIR', () => {
  it('refuses a second start on the same directory, naming it and the process holding it', async () => {
    const dataDir = tempDir();
    const first = await startPersisting(dataDir);
    try {
      expect(readFileSync(join(dataDir, '.lock'), 'utf8').trim()).toBe(String(process.pid));
      const second = startPersisting(dataDir);
      await expect(second).rejects.toThrow(DataDirLockedError);
      await expect(second).rejects.toThrow(
        `The data directory ${resolve(dataDir)} is in use by process ${process.pid}`,
      );
      // The refused start left the first one's data and lock alone, and it still answers.
      expect((await fetch(`${first.baseUrl}/health`)).status).toBe(200);
      expect(existsSync(join(dataDir, '.lock'))).toBe(true);
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dataDir, '.lock'))).toBe(false);
  });

  it('takes over a stale lock, whose process is no longer running', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, '.lock'), `${await deadPid()}\n`);
    const platform = await startPersisting(dataDir);
    try {
      expect(readFileSync(join(dataDir, '.lock'), 'utf8').trim()).toBe(String(process.pid));
      expect((await fetch(`${platform.baseUrl}/health`)).status).toBe(200);
    } finally {
      await platform.stop();
    }
  });
});

describe('a taken port', () => {
  it('fails with one clear message suggesting PORT, before starting anything, and releases the lock', async () => {
    const dataDir = tempDir();
    const { server, port } = await occupyPort();
    try {
      const start = startPersisting(dataDir, { PORT: String(port) });
      await expect(start).rejects.toThrow(PortInUseError);
      await expect(start).rejects.toThrow(
        `Port ${port} on 127.0.0.1 is already in use (another npm start?). Stop that process, or choose another ` +
          `port: PORT=${port + 1} npm start`,
      );
      expect(existsSync(join(dataDir, '.lock'))).toBe(false);
      expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
    } finally {
      server.close();
    }
  });
});

/**
 * `npm start` as a real process runs on its own embedded stores whatever database the test run uses (DATABASE_URL is
 * not passed on): CI's PostgreSQL pass would repeat the embedded pass exactly, so these run in that pass only.
 */
const embeddedRunOnly = Boolean(inject('databaseUrl'));

describe.skipIf(embeddedRunOnly)('npm start (bin/local.ts)', () => {
  function run(env: Record<string, string>) {
    // `npm start` as a newcomer runs it: on the embedded stores, whatever database the test run itself uses (and
    // whatever cloud database settings a file before it in this worker left in the environment).
    const inherited = newcomerEnv();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      env: { ...inherited, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    return { child, exited, output: () => ({ stdout, stderr }) };
  }

  let occupied: { server: Server; port: number };
  beforeAll(async () => {
    occupied = await occupyPort();
  });
  afterAll(() => {
    occupied.server.close();
  });

  it('exits with code 1 and one line when the port is taken', async () => {
    const started = run({ PORT: String(occupied.port), DATA_DIR: tempDir() });
    expect(await started.exited).toBe(1);
    const { stderr } = started.output();
    expect(stderr.trim().split('\n')).toEqual([
      `Port ${occupied.port} on 127.0.0.1 is already in use (another npm start?). Stop that process, or choose ` +
        `another port: PORT=${occupied.port + 1} npm start`,
    ]);
  });

  it('exits with code 1 and one line when another process holds the data directory', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, '.lock'), `${process.pid}\n`);
    const started = run({ PORT: '0', DATA_DIR: dataDir });
    expect(await started.exited).toBe(1);
    expect(started.output().stderr.trim().split('\n')).toEqual([
      `The data directory ${resolve(dataDir)} is in use by process ${process.pid} (another npm start?). Stop ` +
        `that process, or give this one its own directory: DATA_DIR=${resolve(dataDir)}-2 npm start`,
    ]);
  });

  it('reports each slow step of a first start, and stops cleanly on SIGTERM, releasing the directory', async () => {
    const dataDir = tempDir();
    const started = run({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: 'admin-password-1' });
    const listening = await new Promise<string>((done, fail) => {
      started.child.stdout.on('data', () => {
        const url = /Tenantbase listening on (\S+)/.exec(started.output().stdout)?.[1];
        if (url) done(url);
      });
      started.exited.then((code) => fail(new Error(`exited ${code}: ${started.output().stderr}`)));
    });
    expect((await fetch(`${listening}/health`)).status).toBe(200);
    expect(existsSync(join(dataDir, '.lock'))).toBe(true);
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    // The console's build is a step of a checkout's first start only (console/dist missing), after the stores.
    const lines = started
      .output()
      .stderr.trim()
      .split('\n')
      .filter((line) => !/^building the console… done in \d+\.\d s$/.test(line));
    expect(lines.slice(0, 5)).toEqual([
      expect.stringMatching(/^starting embedded DynamoDB… done in \d+\.\d s$/),
      expect.stringMatching(/^initialising embedded PostgreSQL… done in \d+\.\d s$/),
      expect.stringMatching(/^preparing the control-plane table… done in \d+\.\d s$/),
      expect.stringMatching(/^applying the SQL migrations… done in \d+\.\d s$/),
      expect.stringMatching(/^checking the first superuser… done in \d+\.\d s$/),
    ]);
    expect(lines.at(-1)).toBe('SIGTERM: stopping… HTTP server and stores closed, data directory released.');
    expect(started.output().stdout).toContain(`API explorer: ${listening}/ninja-docs/`);
    expect(started.output().stdout).toContain(`Console: ${listening}/console/`);
    expect(existsSync(join(import.meta.dirname, '..', '..', 'console', 'dist', 'manifest.json'))).toBe(true);
    expect(existsSync(join(dataDir, '.lock'))).toBe(false);
  }, 120_000);
});
