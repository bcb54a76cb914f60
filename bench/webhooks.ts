import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registry } from '../functions/registry';
import { loadConfig } from '../shared/config';
import { startLocalPlatform } from '../shared/host/local/runtime';
import { login } from './setup';

/**
 * A rough, bounded local check of record events (docs/events.md), not a bench scenario: C1 (create one record, 10
 * in flight) on a table nobody listens to and on one with one subscribed webhook, and the delivery latency from the
 * create's request to the endpoint's receipt (an upper bound of commit to endpoint), p50 and p99. One run, in this
 * process (server, dispatcher and endpoint share its CPU), on DATABASE_URL or the embedded PGlite.
 * `npx tsx bench/webhooks.ts [records]` (default 300 per table).
 */

const records = Number(process.argv[2] ?? 300);
const connections = 10;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function main() {
  const received = new Map<string, number>();
  const endpoint = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { record: { code: string } };
      if (!received.has(event.record.code)) received.set(event.record.code, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const { port } = endpoint.address() as AddressInfo;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const password = randomBytes(18).toString('base64url');
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ADMIN_PASSWORD: password,
    WEBHOOKS_ALLOWED_HOSTS: `127.0.0.1:${port}`,
  });
  const platform = await startLocalPlatform(config, registry, { persist: false });
  try {
    const token = await login(platform.baseUrl, password);
    const call = async (method: string, path: string, body: unknown, site?: string) => {
      const response = await fetch(`${platform.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(site ? { 'x-site': site } : {}),
        },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as Record<string, string>;
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };
    const org = await call('POST', '/api/cloud/organizations/', { name: 'Hooks' });
    const site = (
      await call('POST', `/api/cloud/organizations/${org.slug}/sites/`, {
        name: `Hooks Site ${randomBytes(3).toString('hex')}`,
      })
    ).slug;
    const app = (await call('POST', '/api/apps/', { name: 'Hooks App' }, site)).slug;
    const schema = {
      fields: [
        { name: 'code', type: 'string' },
        { name: 'n', type: 'integer' },
      ],
    };
    for (const name of ['plain', 'hooked'])
      await call('POST', `/api/apps/${app}/datatables/`, { name, schema }, site);
    await call(
      'POST',
      `/api/apps/${app}/webhooks/`,
      { url: `http://127.0.0.1:${port}/`, events: ['POST_RECORD_CREATE'], tables: ['hooked'] },
      site,
    );
    const sent = new Map<string, number>();
    const run = async (table: string) => {
      let next = 0;
      const started = performance.now();
      const worker = async () => {
        while (next < records) {
          const code = `${table}-${next++}`;
          sent.set(code, performance.now());
          await call('POST', `/api/apps/${app}/datatables/${table}/data/`, { code, n: next }, site);
        }
      };
      await Promise.all(Array.from({ length: connections }, worker));
      return records / ((performance.now() - started) / 1000);
    };
    await run('plain'); // warm-up of both paths' code
    const plain = await run('plain');
    const hooked = await run('hooked');
    const deadline = Date.now() + 60_000;
    while (
      [...sent.keys()].some((code) => code.startsWith('hooked') && !received.has(code)) &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    const latencies = [...sent]
      .filter(([code]) => code.startsWith('hooked') && received.has(code))
      .map(([code, at]) => (received.get(code) as number) - at);
    console.log(
      JSON.stringify(
        {
          records,
          connections,
          database: config.databaseUrl ? 'DATABASE_URL' : 'embedded PGlite',
          c1_req_per_s_no_webhook: Math.round(plain),
          c1_req_per_s_one_webhook: Math.round(hooked),
          ratio: Number((hooked / plain).toFixed(2)),
          delivered: latencies.length,
          latency_ms_p50: Math.round(percentile(latencies, 50)),
          latency_ms_p99: Math.round(percentile(latencies, 99)),
        },
        null,
        2,
      ),
    );
  } finally {
    await platform.stop();
    endpoint.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
