import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { registry } from '../../functions/registry';
import { buildDeps } from '../../shared/compose/build-deps';
import { loadConfig } from '../../shared/config';
import { type LocalPlatform, startLocalPlatform } from '../../shared/host/local/runtime';
import { ensureTable } from '../../shared/store/ensure-table';
import { ApiClient } from '../support/client';
import {
  dynoxidesOf,
  eventually,
  newcomerEnv,
  postgresChildrenOf,
  startProcess,
} from '../support/local-process';
import { databaseEnv } from '../support/platform';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'local-lifecycle-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const template = inject('pgliteTemplate');
const password = 'Granite-Owl-Parade-61';

function tableEnv(table: string): Record<string, string> {
  return {
    PORT: '0',
    DATA_DIR: tempDir(),
    LOG_LEVEL: 'silent',
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    ADMIN_PASSWORD: password,
    ...databaseEnv(inject('databaseUrl')),
  };
}

/** A platform on the run's DynamoDB, on the table named, keeping nothing on disk. */
function startOn(table: string): Promise<LocalPlatform> {
  return startLocalPlatform(loadConfig(tableEnv(table)), registry, {
    persist: false,
    ...(template ? { postgresTemplate: template } : {}),
  });
}

/**
 * The state a kill during the first start could leave before the marker and the user were written together: the
 * bootstrap marker alone, no user.
 */
async function halfBootstrappedTable(): Promise<string> {
  const table = `lifecycle-${randomBytes(6).toString('hex')}`;
  const deps = buildDeps(loadConfig(tableEnv(table)));
  await ensureTable(deps.store);
  await deps.store.doc.send(
    new PutCommand({
      TableName: table,
      Item: {
        PK: 'BOOTSTRAP',
        SK: 'ADMIN',
        email: 'admin@localhost.localdomain',
        created_at: '2024-01-01T00:00:00Z',
      },
    }),
  );
  return table;
}

function runCommand(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
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
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) =>
    child.once('exit', (code) => done({ code, stdout, stderr })),
  );
}

describe('the first superuser after a start killed half-way', () => {
  it('a marker without its user is repaired by the next start, which creates the superuser', async () => {
    const table = await halfBootstrappedTable();
    const platform = await startOn(table);
    try {
      expect(platform.admin?.user.username).toBe('admin');
      expect(platform.admin?.user.is_superuser).toBe(true);
      const admin = await new ApiClient(platform.baseUrl).login('admin', password);
      const me = await admin.get('/api/cloud/users/me/');
      expect(me.body.is_superuser).toBe(true);
    } finally {
      await platform.stop();
    }
    // Once repaired, the next start creates nobody.
    const again = await startOn(table);
    try {
      expect(again.admin).toBeUndefined();
      await new ApiClient(again.baseUrl).login('admin', password);
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('npm run create-superuser repairs it too, and says "exists already" only when the superuser exists', async () => {
    const table = await halfBootstrappedTable();
    const env = { ...tableEnv(table), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const first = await runCommand('bin/create-superuser.ts', env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe('Created superuser admin <admin@localhost.localdomain>\n');
    const second = await runCommand('bin/create-superuser.ts', env);
    expect(second).toMatchObject({ code: 0, stdout: 'The first superuser exists already.\n' });
    const platform = await startOn(table);
    try {
      expect(platform.admin).toBeUndefined();
      const admin = await new ApiClient(platform.baseUrl).login('admin', password);
      expect((await admin.get('/api/cloud/users/me/')).body.is_superuser).toBe(true);
    } finally {
      await platform.stop();
    }
  }, 120_000);
});

/**
 * `npm start` as a real process runs on its own embedded stores whatever database the test run uses (DATABASE_URL is
 * not passed on): CI's PostgreSQL pass would repeat the embedded pass exactly, so these run in that pass only.
 */
const embeddedRunOnly = Boolean(inject('databaseUrl'));

/** `npm start` (bin/local.ts) as a real process, on the embedded stores, with its data in `dataDir`. */
function startServer(dataDir: string, env: Record<string, string> = {}) {
  const inherited = newcomerEnv();
  return startProcess(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    ...inherited,
    LOG_LEVEL: 'silent',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD: password,
    ...env,
  });
}

describe.skipIf(embeddedRunOnly)('the embedded stores live no longer than the server', () => {
  it('the embedded DynamoDB and the PostgreSQL child process are gone after a kill -9 of the server', async () => {
    const dataDir = tempDir();
    const server = startServer(dataDir);
    try {
      await server.until(() => server.output().stderr.includes('embedded PostgreSQL… done'));
      expect(dynoxidesOf(dataDir)).toHaveLength(1);
      // PGlite runs in a process of its own, a child of the server's.
      const [postgres] = postgresChildrenOf(dataDir);
      expect(postgres).toBeDefined();
      expect(execFileSync('ps', ['-o', 'ppid=', '-p', String(postgres)], { encoding: 'utf8' }).trim()).toBe(
        String(server.child.pid),
      );
      server.child.kill('SIGKILL');
      expect((await server.exited).signal).toBe('SIGKILL');
      // Up to 30 s (300 tries) for them to notice; it takes a fraction of a second.
      expect(await eventually(() => dynoxidesOf(dataDir).length === 0, 300)).toBe(true);
      expect(await eventually(() => postgresChildrenOf(dataDir).length === 0, 300)).toBe(true);
    } finally {
      server.child.kill('SIGKILL');
      for (const pid of [...dynoxidesOf(dataDir), ...postgresChildrenOf(dataDir)])
        process.kill(pid, 'SIGKILL');
    }
  }, 120_000);
});

interface Outcome {
  status: number | undefined;
  connection: string | undefined;
  error: string | undefined;
}

/** One GET on a kept-alive connection of `agent`. */
function get(agent: Agent, url: string): Promise<Outcome> {
  return new Promise((done) => {
    const call = request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () =>
        done({ status: response.statusCode, connection: response.headers.connection, error: undefined }),
      );
    });
    call.on('error', (error: NodeJS.ErrnoException) =>
      done({ status: undefined, connection: undefined, error: error.code ?? error.message }),
    );
    call.end();
  });
}

describe('SHUTDOWN_DEADLINE_SECONDS', () => {
  it('defaults to 10 s, takes 0 to 3600, and names a bad value', () => {
    expect(loadConfig({}).shutdownDeadlineSeconds).toBe(10);
    expect(loadConfig({ SHUTDOWN_DEADLINE_SECONDS: '0' }).shutdownDeadlineSeconds).toBe(0);
    expect(() => loadConfig({ SHUTDOWN_DEADLINE_SECONDS: '3601' })).toThrow(
      'SHUTDOWN_DEADLINE_SECONDS must be at most 3600, got "3601"',
    );
    expect(() => loadConfig({ SHUTDOWN_DEADLINE_SECONDS: 'soon' })).toThrow(
      'SHUTDOWN_DEADLINE_SECONDS must be a non-negative integer, got "soon"',
    );
  });
});

describe.skipIf(embeddedRunOnly)('stopping with SIGTERM', () => {
  const dataDir = tempDir();

  it('stops taking requests at the signal, even from a client that keeps sending, then exits', async () => {
    const server = startServer(dataDir);
    try {
      const url = `${await server.listening()}/health`;
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      let exited = false;
      server.exited.then(() => {
        exited = true;
      });
      const stopping = () => server.output().stderr.includes('SIGTERM: stopping…');
      const before: Outcome[] = [];
      const after: Outcome[] = [];
      // A client sending one request after another on one kept-alive connection; bounded in count.
      for (let sent = 0; sent < 5000 && !exited; sent++) {
        const signalled = stopping();
        const outcome = await get(agent, url);
        (signalled ? after : before).push(outcome);
        if (before.length === 20 && !signalled && server.child.exitCode === null && !server.child.killed)
          server.child.kill('SIGTERM');
        // Once the server has gone away, new connections are refused: that is all there is to see.
        if (signalled && outcome.error === 'ECONNREFUSED') break;
      }
      agent.destroy();
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(before.slice(0, 20).every((outcome) => outcome.status === 200)).toBe(true);
      // Not one request sent after the server said it was stopping was served.
      expect(after.filter((outcome) => outcome.status === 200)).toEqual([]);
      for (const outcome of after)
        if (outcome.status !== undefined)
          expect(outcome).toEqual({ status: 503, connection: 'close', error: undefined });
      expect(server.output().stderr.trim().split('\n').at(-1)).toBe(
        'SIGTERM: stopping… HTTP server and stores closed, data directory released.',
      );
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 180_000);

  it('waits for a request in flight until the deadline, then cuts it and exits', async () => {
    const server = startServer(dataDir, { SHUTDOWN_DEADLINE_SECONDS: '1' });
    try {
      const base = new URL(await server.listening());
      const held = await holdRequest(base);
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
      await held.closed;
      expect(server.output().stderr.trim().split('\n').at(-1)).toBe(
        'SIGTERM: stopping… cut 1 connection still open after 1 s; HTTP server and stores closed, data directory ' +
          'released.',
      );
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 180_000);

  it('exits at once on a second signal while a request is held open', async () => {
    // A deadline far beyond the test's timeout: only the second signal can end it in time.
    const server = startServer(dataDir, { SHUTDOWN_DEADLINE_SECONDS: '3600' });
    try {
      const base = new URL(await server.listening());
      const held = await holdRequest(base);
      server.child.kill('SIGTERM');
      await server.until(() => server.output().stderr.includes('SIGTERM: stopping…'));
      server.child.kill('SIGINT');
      expect(await server.exited).toEqual({ code: 1, signal: null });
      await held.closed;
      expect(server.output().stderr).toContain('SIGINT while stopping: exiting at once.');
      // The lock goes with the process, as on any exit.
      expect(existsSync(join(dataDir, '.lock'))).toBe(false);
    } finally {
      server.child.kill('SIGKILL');
    }
  }, 180_000);
});

/**
 * A request whose body never finishes: the server is in the middle of reading it until the connection closes. It
 * follows a complete request in the same write, so once that one is answered the server has parsed the held one.
 */
async function holdRequest(base: URL): Promise<{ closed: Promise<void> }> {
  const socket = connect(Number(base.port), base.hostname);
  await new Promise<void>((done) => socket.once('connect', () => done()));
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  socket.on('error', () => {});
  const answered = new Promise<void>((done) => {
    let received = '';
    socket.on('data', (chunk) => {
      received += String(chunk);
      if (received.includes('HTTP/1.1 200')) done();
    });
  });
  socket.write(
    `GET /health HTTP/1.1\r\nHost: ${base.host}\r\n\r\n` +
      `POST /api/auth/jwt/token/ HTTP/1.1\r\nHost: ${base.host}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\n\r\n{"username": ',
  );
  await answered;
  return { closed };
}
