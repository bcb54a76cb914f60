import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ApiClient } from '../support/client';
import { createTable, dataPath } from '../support/data';
import { startLocalServer } from '../support/local-process';
import { databaseEnv, privateDatabase } from '../support/platform';
import { startReceiver } from '../support/webhook-receiver';

/**
 * Never lost, never invented (docs/events.md, "Delivery guarantees"): `npm start`'s server is killed with SIGKILL in
 * the middle of a burst of writes, some of which are rolled back (a duplicate code), while deliveries are in flight.
 * After a restart on the same stores, every record the table holds (every committed write) has been delivered,
 * each verified by the Standard Webhooks package, and no event names a record the table does not hold.
 */

const password = 'Granite-Owl-Parade-61';
const dirs: string[] = [];
const databases: { drop: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const database of databases) await database.drop();
});

const startServer = (env: Record<string, string>) => startLocalServer({ ADMIN_PASSWORD: password, ...env });

describe('the server killed (kill -9) during a burst of writes', () => {
  it('delivers every committed change after the restart, and nothing for rolled-back ones', async () => {
    const receiver = await startReceiver();
    // Until the kill the endpoint refuses (503): every delivery is still pending (or in flight) when the process
    // dies, so whatever arrives was sent by the restarted server.
    let killed = false;
    receiver.answer = () => (killed ? 204 : 503);
    const dataDir = mkdtempSync(join(tmpdir(), 'webhooks-crash-'));
    dirs.push(dataDir);
    const shared = inject('databaseUrl');
    const database = shared ? await privateDatabase(shared) : undefined;
    if (database) databases.push(database);
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      TABLE_NAME: `webhooks-${randomBytes(6).toString('hex')}`,
      DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
      WEBHOOKS_ALLOWED_HOSTS: receiver.host,
      // A delivery cut short by the kill is leased for this plus a margin, then sent again.
      WEBHOOKS_CALL_TIMEOUT_MS: '1000',
      ...databaseEnv(database?.url),
    };
    const first = startServer(env);
    let secret = '';
    let app = '';
    let site = '';
    const committed = new Set<string>();
    const refused = new Set<string>();
    try {
      const admin = await new ApiClient(await first.listening).login('admin', password);
      const org = await admin.post('/api/cloud/organizations/', { name: 'Crash Org' });
      const made = await admin.post(`/api/cloud/organizations/${org.body.slug}/sites/`, {
        name: 'Crash Site',
      });
      site = made.body.slug;
      const owner = admin.forSite(site);
      app = (await owner.post('/api/apps/', { name: 'Burst' })).body.slug;
      await createTable(owner, app, 'orders', {
        fields: [{ name: 'code', type: 'string', constraints: { unique: true } }],
      });
      const hook = await owner.post(`/api/apps/${app}/webhooks/`, {
        url: receiver.url,
        events: ['POST_RECORD_CREATE'],
        tables: ['orders'],
      });
      expect(hook.status).toBe(201);
      secret = hook.body.data.secret;
      // The burst: single creates, bulk creates, and bulk creates that a duplicate code rolls back.
      let answered = 0;
      const writes = Array.from({ length: 120 }, (_, index) => {
        const body =
          index % 3 === 0
            ? [{ code: `bulk-${index}-a` }, { code: `bulk-${index}-b` }]
            : index % 3 === 1
              ? { code: `one-${index}` }
              : [{ code: `dup-${index}` }, { code: `dup-${index}` }];
        return owner.post(dataPath(app, 'orders'), body).then(
          (response) => {
            answered++;
            const codes = (Array.isArray(body) ? body : [body]).map((row) => row.code);
            for (const code of codes) (response.status === 201 ? committed : refused).add(code);
            if (answered === 40) {
              first.child.kill('SIGKILL');
            }
          },
          () => {},
        );
      });
      await Promise.all(writes);
      await first.exited;
      killed = true;
    } finally {
      first.child.kill('SIGKILL');
    }
    expect(receiver.received).toEqual([]);
    expect(committed.size).toBeGreaterThan(0);
    expect(refused.size).toBeGreaterThan(0);

    const second = startServer(env);
    try {
      const owner = (await new ApiClient(await second.listening).login('admin', password)).forSite(site);
      // What the table holds is what was committed: the answered writes and any whose answer the kill cut off.
      const list = await owner.get(`${dataPath(app, 'orders')}?page_size=1000`);
      expect(list.status).toBe(200);
      const stored = new Set<string>(list.body.data.map((row: { code: string }) => row.code));
      for (const code of committed) expect(stored.has(code)).toBe(true);
      for (const code of refused) expect(stored.has(code)).toBe(false);
      const delivered = () => new Set(receiver.received.map((hook) => hook.json.record.code as string));
      await receiver.until(() => [...stored].every((code) => delivered().has(code)), 120_000);
      const wh = new Webhook(secret);
      const events = receiver.received.map(
        (hook) => wh.verify(hook.body, hook.headers) as { record: { code: string } },
      );
      // Nothing invented: every event names a stored record (duplicates are allowed: at least once).
      expect(events.every((event) => stored.has(event.record.code))).toBe(true);
      expect(new Set(events.map((event) => event.record.code))).toEqual(stored);
    } finally {
      second.child.kill('SIGTERM');
      await Promise.race([second.exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      second.child.kill('SIGKILL');
      await receiver.close();
    }
  }, 240_000);
});
