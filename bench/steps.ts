import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routes } from '../functions/groups';
import { LocalKeySigner } from '../shared/adapters/local/key-signer';
import { TokenService } from '../shared/auth/tokens';
import type { CatalogEntry, FieldDef } from '../shared/data/common/model';
import { compileTable, present } from '../shared/data/tables/data-table';
import { Router } from '../shared/http/router';
import { createLogger } from '../shared/log';

/**
 * `npm run bench:steps`: each step of the request pipeline on its own, so that a regression shows where it happened.
 * Each step runs `STEPS_OPS` times (default 20,000) after a warm-up of a tenth of that, in this process alone; the
 * figures are CPU microseconds per operation on the machine it runs on, the cheapest of 5 rounds (compare runs of
 * the same machine only). Last, the whole pipeline of G1, L1 and C1 on a PostgreSQL of its own (bench/pipeline.ts).
 */

const ops = Number(process.env.STEPS_OPS || 20_000);

/** Rounds per step; the figure is the cheapest round's (other work on the machine only ever adds CPU time). */
const rounds = 5;

function measureStep(name: string, run: (n: number) => unknown): { name: string; microseconds: number } {
  for (let n = 0; n < ops / 10; n++) run(n);
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let n = 0; n < ops / rounds; n++) run(n);
    const used = process.cpuUsage(before);
    perRound.push((used.user + used.system) / (ops / rounds));
  }
  return { name, microseconds: Math.min(...perRound) };
}

async function measureAsync(name: string, run: (n: number) => Promise<unknown>, count = ops) {
  for (let n = 0; n < count / 10; n++) await run(n);
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let n = 0; n < count / rounds; n++) await run(n);
    const used = process.cpuUsage(before);
    perRound.push((used.user + used.system) / (count / rounds));
  }
  return { name, microseconds: Math.min(...perRound) };
}

const results: { name: string; microseconds: number }[] = [];

// Token verification: the ES256 signature check of a token seen for the first time, and a remembered one.
const settings = {
  issuer: 'https://issuer.test',
  audience: 'platform-api',
  accessSeconds: 900,
  refreshSeconds: 3600,
};
const signer = new LocalKeySigner(join(mkdtempSync(join(tmpdir(), 'steps-')), 'key.pem'));
const signatureOps = Math.min(ops, 2000);
const issuer = new TokenService(signer, settings, () => new Date());
const fresh = await Promise.all(
  Array.from({ length: signatureOps * 1.1 }, (_, n) =>
    issuer.issue({ id: n + 1, username: `u${n}` }, 'access'),
  ),
);
const cold = new TokenService(signer, settings, () => new Date(), [], 1);
results.push(
  await measureAsync(
    'token: ES256 verification (first sight)',
    (n) => cold.verify(fresh[n] as string, 'access'),
    signatureOps,
  ),
);
const warm = new TokenService(signer, settings, () => new Date());
const remembered = fresh[0] as string;
results.push(await measureAsync('token: remembered (cache hit)', () => warm.verify(remembered, 'access')));

// Route matching: a record's path, among the whole route table.
const router = new Router(routes);
results.push(
  measureStep('route match: GET a record', () =>
    router.match('GET', '/api/apps/shop/datatables/items/data/7c9e6679-7425-40de-944a-e07e2f6b1b2a/'),
  ),
);

// The per-request log line, written to nowhere (the cost of building it).
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (() => true) as typeof process.stdout.write;
const log = createLogger('info').child({ requestId: 'a-request-id', site: 'shop' });
results.push(
  measureStep('log line: one request', (n) =>
    log.info('request', {
      method: 'GET',
      path: '/api/apps/shop/datatables/items/data/',
      status: 200,
      ms: n % 7,
    }),
  ),
);
process.stdout.write = write;

// Envelope serialization: a page of 25 records, each with a JSON field.
const page = {
  count: 1000,
  next: 'http://127.0.0.1/api/apps/shop/datatables/items/data/?page=3',
  previous: 'http://127.0.0.1/api/apps/shop/datatables/items/data/?page=1',
  results: Array.from({ length: 25 }, (_, n) => ({
    id: `7c9e6679-7425-40de-944a-e07e2f6b1b${String(n).padStart(2, '0')}`,
    title: `Item ${n}`,
    price: n * 3.5,
    created_at: '2026-01-01T00:00:00.000Z',
    details: { colour: 'blue', sizes: [1, 2, 3], stock: { a: n, b: n * 2 } },
  })),
};
results.push(measureStep('envelope: a page of 25 records to JSON', () => JSON.stringify(page)));

// Row conversion: a page of 25 rows as the driver gives them (numeric as text, timestamptz as the API's text, jsonb parsed)
// shown as records (`present`), with and without a JSON field per row.
const rowFields: FieldDef[] = [
  { name: 'id', type: 'string', format: 'uuid' },
  { name: 'title', type: 'string' },
  { name: 'price', type: 'number' },
  { name: 'created_at', type: 'datetime' },
];
function tableOf(fields: FieldDef[]) {
  return compileTable('site_steps', {
    id: `steps-${fields.length}`,
    app_id: 1,
    name: 'items',
    physical_name: 'a1_items',
    description: '',
    definition: { fields, primaryKey: ['id'], uniqueKeys: [], foreignKeys: [], indexes: [] },
    layout: {} as CatalogEntry['layout'],
    version: 1,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    site_identity: null,
    app_identity: null,
  });
}
const plainTable = tableOf(rowFields);
const jsonTable = tableOf([...rowFields, { name: 'details', type: 'object' }]);
const driverRows = page.results.map((record) => ({
  id: record.id,
  title: record.title,
  price: String(record.price),
  created_at: record.created_at,
  details: record.details,
}));
results.push(
  measureStep('rows: 25 rows to records, no JSON field', () =>
    driverRows.map((row) => present(plainTable, row)),
  ),
);
results.push(
  measureStep('rows: 25 rows to records, a JSON field each', () =>
    driverRows.map((row) => present(jsonTable, row)),
  ),
);
// What the driver does for a jsonb column of those rows: its text parsed, once per row.
const jsonTexts = driverRows.map((row) => JSON.stringify(row.details));
results.push(
  measureStep('rows: 25 jsonb values parsed (the driver)', () => jsonTexts.map((text) => JSON.parse(text))),
);

// The whole pipeline of G1, L1 and C1 on a PostgreSQL of its own (STEPS_PIPELINE=0 skips it: no database needed).
if (process.env.STEPS_PIPELINE !== '0') {
  const { measurePipeline } = await import('./pipeline');
  results.push(...(await measurePipeline(Number(process.env.STEPS_PIPELINE_OPS || 3000))));
}

process.stdout.write(`| step | CPU µs per operation |\n|---|---|\n`);
for (const { name, microseconds } of results)
  process.stdout.write(`| ${name} | ${microseconds.toFixed(2)} |\n`);
