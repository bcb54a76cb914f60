import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { operationsByGroup } from '../../functions/registry';
import { type LocalPlatform, startLocalPlatform } from '../../shared/adapters/local/runtime';
import { loadConfig } from '../../shared/config';
import { buildDeps } from '../../shared/deps';
import { ensureTable } from '../../shared/store/ensure-table';
import { ApiClient } from '../support/client';

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
    ...(inject('databaseUrl') ? { DATABASE_URL: inject('databaseUrl') as string } : {}),
  };
}

/** A platform on the run's DynamoDB, on the table named, keeping nothing on disk. */
function startOn(table: string): Promise<LocalPlatform> {
  return startLocalPlatform(loadConfig(tableEnv(table)), operationsByGroup, {
    persist: false,
    ...(template ? { postgresTemplate: new Blob([readFileSync(template)]) } : {}),
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
