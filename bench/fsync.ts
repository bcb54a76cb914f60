/**
 * One-off measurement (docs/local-runtime.md, "Durability"): what fsync=on costs the embedded PostgreSQL with its
 * data on disk. Starts the platform on a fresh temporary DATA_DIR twice, once with PGlite's default (-F, fsync off)
 * and once without -F, and times N record creates through HTTP, one after another. `npx tsx bench/fsync.ts [N]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registry } from '../functions/registry';
import { loadConfig } from '../shared/config';
import { startEmbeddedDynamoDb } from '../shared/host/local/embedded-dynamodb';
import { startEmbeddedPostgres } from '../shared/host/local/embedded-postgres';
import { startLocalPlatform } from '../shared/host/local/runtime';
import { ApiClient } from '../test/support/client';
import { createTable, dataPath } from '../test/support/data';

const count = Number(process.argv[2] ?? 500);
const password = 'Granite-Owl-Parade-61';

async function run(fsync: boolean): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-fsync-'));
  const dynamo = await startEmbeddedDynamoDb({ file: join(dataDir, 'dynamodb.sqlite') });
  const postgres = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pglite'), fsync });
  const platform = await startLocalPlatform(
    loadConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      DYNAMODB_ENDPOINT: dynamo.url,
      DATABASE_URL: postgres.url,
      DATABASE_POOL_SIZE: '1',
      ADMIN_PASSWORD: password,
    }),
    registry,
    { persist: false },
  );
  try {
    const admin = await new ApiClient(platform.baseUrl).login('admin', password);
    const org = await admin.post('/api/cloud/organizations/', { name: 'Bench' });
    const site = await admin.post(`/api/cloud/organizations/${org.body.slug}/sites/`, { name: 'Bench' });
    const owner = admin.forSite(site.body.slug);
    const app = await owner.post('/api/apps/', { name: 'Bench' });
    await createTable(owner, app.body.slug, 'notes', {
      fields: [
        { name: 'title', type: 'string', constraints: { required: true } },
        { name: 'n', type: 'integer' },
      ],
    });
    const path = dataPath(app.body.slug, 'notes');
    const started = performance.now();
    for (let n = 0; n < count; n++) {
      const response = await owner.post(path, { title: `note ${n}`, n });
      if (response.status !== 201) throw new Error(`create ${n}: ${response.status} ${response.text}`);
    }
    return performance.now() - started;
  } finally {
    await platform.stop();
    await postgres.stop();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const fsync of [false, true, false, true]) {
  const ms = await run(fsync);
  process.stdout.write(
    `fsync=${fsync ? 'on ' : 'off'}: ${count} creates in ${(ms / 1000).toFixed(2)} s, ${(ms / count).toFixed(2)} ms each\n`,
  );
}
