import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withSection } from '../bin/doc-sections';
import { serverProcess } from '../bin/server-process';
import { freePort, memory, type Server, startServer } from './processes';
import { type SoakSample, soakVerdict, sparkline } from './soak-verdict';

/**
 * `npm run soak`: the local server (`npm start`, bin/local.ts) under mixed traffic at a fixed rate — list, get,
 * create, update, delete, login, secret read, graph read (ancestors of a leaf), invitation create — for SOAK_SECONDS (default 1800). Every
 * SOAK_SAMPLE_SECONDS (10) it samples the resident memory of the server and of its embedded PostgreSQL child, the
 * server's heap and event-loop delay (bench/soak-probe.mjs, loaded into the server), and the window's p50/p99; at
 * the end it judges the run (bench/soak-verdict.ts): memory rising over the last two thirds, p99 drift or any failed
 * request fail it. On PostgreSQL when DATABASE_URL is set, else on the embedded PGlite. Results go to the "soak"
 * section of docs/benchmarks.md.
 */

function setting(key: string, fallback: number): number {
  const raw = process.env[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${key} must be a positive number, got "${raw}"`);
  return value;
}

const seconds = setting('SOAK_SECONDS', 1800);
const rate = setting('SOAK_RATE', 20);
const sampleSeconds = setting('SOAK_SAMPLE_SECONDS', 10);
const maxInFlight = 64;
const databaseUrl = process.env.DATABASE_URL || undefined;
const password = `Soak-${randomBytes(6).toString('hex')}-Owl-61`;

type Answer = { status: number; body: Record<string, unknown> };

async function call(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function must(answer: Promise<Answer>, status: number, what: string): Promise<Record<string, unknown>> {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`${what}: expected ${status}, got ${got} ${JSON.stringify(body)}`);
  return body;
}

/** The embedded PostgreSQL child of the server, if it has one. */
function postgresChildOf(pid: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('postgres-child.mjs')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function startSoakServer(dataDir: string, probeFile: string): Promise<Server> {
  const port = await freePort();
  const { DATABASE_URL: _unused, ...inherited } = process.env;
  // Started as `npm start` starts it: the node flags and environment of package.json's `config`.
  const start = serverProcess();
  return startServer(
    'project',
    [...start.nodeFlags, '--import', 'tsx', '--import', './bench/soak-probe.mjs', 'bin/local.ts'],
    {
      ...inherited,
      ...start.env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ADMIN_PASSWORD: password,
      SOAK_PROBE_FILE: probeFile,
      SOAK_PROBE_MS: String(sampleSeconds * 1000),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    /Tenantbase listening on/,
    `http://127.0.0.1:${port}`,
    600_000,
  );
}

interface Fixture {
  admin: Record<string, string>;
  inSite: Record<string, string>;
  data: string;
  ids: string[];
  secretPath: string;
  invitations: string;
  users: string[];
  /** A small tree (a binary tree of 63 records, `parent` edges) and its leaves, for the graph reads. */
  graph: string;
  leaves: string[];
}

/** A binary tree of 63 records through the API: the graph reads walk from its leaves to the root (6 levels). */
async function prepareGraph(baseUrl: string, inSite: Record<string, string>, tables: string) {
  const schema = {
    fields: [{ name: 'name', type: 'string' }],
    graph: { enabled: true, types: [{ name: 'parent', inverse: 'kids', constraints: { max_outgoing: 1 } }] },
  };
  await must(call(baseUrl, 'POST', tables, inSite, { name: 'nodes', schema }), 201, 'graph table');
  const graph = `${tables}nodes/data/`;
  const names = Array.from({ length: 63 }, (_, n) => ({ name: `node ${n}` }));
  const created = await must(call(baseUrl, 'POST', graph, inSite, names), 201, 'graph records');
  const nodes = (created.data as { id: string }[]).map((record) => String(record.id));
  const edges = nodes
    .slice(1)
    .map((id, n) => ({ from_id: id, to_id: nodes[Math.floor(n / 2)], type: 'parent' }));
  await must(call(baseUrl, 'POST', `${tables}nodes/edges/`, inSite, edges), 201, 'graph edges');
  return { graph, leaves: nodes.slice(31) };
}

async function prepare(baseUrl: string): Promise<Fixture> {
  const login = await must(
    call(baseUrl, 'POST', '/api/auth/jwt/token/', {}, { username: 'admin', password }),
    200,
    'login',
  );
  const admin = { authorization: `Bearer ${String(login.access)}` };
  const org = await must(
    call(baseUrl, 'POST', '/api/cloud/organizations/', admin, { name: 'Soak' }),
    201,
    'org',
  );
  const site = await must(
    call(baseUrl, 'POST', `/api/cloud/organizations/${String(org.slug)}/sites/`, admin, {
      name: 'Soak Shop',
    }),
    201,
    'site',
  );
  const inSite = { ...admin, 'x-site': String(site.slug) };
  const app = await must(call(baseUrl, 'POST', '/api/apps/', inSite, { name: 'Soak App' }), 201, 'app');
  const tables = `/api/apps/${String(app.slug)}/datatables/`;
  const schema = {
    fields: [
      { name: 'title', type: 'string' },
      { name: 'price', type: 'integer' },
      { name: 'details', type: 'json' },
    ],
  };
  await must(call(baseUrl, 'POST', tables, inSite, { name: 'items', schema }), 201, 'table');
  const data = `${tables}items/data/`;
  const { graph, leaves } = await prepareGraph(baseUrl, inSite, tables);
  const rows = Array.from({ length: 500 }, (_, n) => ({ title: `Item ${n}`, price: n, details: { n } }));
  const created = await must(call(baseUrl, 'POST', data, inSite, rows), 201, 'records');
  const ids = (created.data as { id: string }[]).map((record) => String(record.id));
  await must(
    call(baseUrl, 'POST', '/api/secret-types/', inSite, { name: 'Soak_Token', sensitivity_level: 'private' }),
    201,
    'secret type',
  );
  await must(
    call(baseUrl, 'POST', '/api/secrets/', inSite, {
      secret_type: 'soak-token',
      key: 'soak-token',
      app: String(app.slug),
      value: { token: randomBytes(24).toString('base64url') },
    }),
    201,
    'secret',
  );
  // Sign-ins are throttled per account: the traffic signs in as several users, as real traffic does.
  const users = Array.from({ length: 20 }, (_, n) => `soak-user-${n}`);
  for (const username of users)
    await must(
      call(baseUrl, 'POST', '/api/cloud/users/', admin, {
        username,
        email: `${username}@example.com`,
        password,
      }),
      201,
      'user',
    );
  return {
    admin,
    inSite,
    data,
    ids,
    secretPath: `/api/secrets/soak-token/?app=${String(app.slug)}`,
    invitations: `/api/cloud/organizations/${String(org.slug)}/invitations/`,
    users,
    graph,
    leaves,
  };
}

type Operation = (baseUrl: string, f: Fixture, n: number) => Promise<Answer>;
const pick = <T>(list: readonly T[], n: number) => list[n % list.length] as T;
/** Records this run created and has not deleted yet: updates and deletes work on them, so the table stays flat. */
const fresh: string[] = [];

const expectStatus = async (answer: Promise<Answer>, status: number) => {
  const got = await answer;
  if (got.status !== status) throw new Error(`${got.status} ${JSON.stringify(got.body).slice(0, 200)}`);
  return got;
};

/** The mix, one entry per request of a cycle. */
const operations: [string, Operation][] = [
  [
    'list',
    (b, f) => call(b, 'GET', `${f.data}?price_gt=100&_sort=price&_order=desc&page=2&page_size=20`, f.inSite),
  ],
  ['get', (b, f, n) => call(b, 'GET', `${f.data}${pick(f.ids, n * 7919)}/`, f.inSite)],
  [
    'create',
    async (b, f, n) => {
      const answer = await expectStatus(
        call(b, 'POST', f.data, f.inSite, { title: `Soak ${n}`, price: n % 1000, details: { n } }),
        201,
      );
      fresh.push(String((answer.body.data as { id: string } | undefined)?.id ?? answer.body.id));
      return answer;
    },
  ],
  ['list', (b, f) => call(b, 'GET', `${f.data}?title_contains=Item%201&page_size=10`, f.inSite)],
  ['get', (b, f, n) => call(b, 'GET', `${f.data}${pick(f.ids, n * 104_729)}/`, f.inSite)],
  [
    'login',
    (b, f, n) => call(b, 'POST', '/api/auth/jwt/token/', {}, { username: pick(f.users, n), password }),
  ],
  [
    'update',
    (b, f, n) => {
      const id = fresh.at(-1) ?? pick(f.ids, n);
      return call(b, 'PATCH', `${f.data}${id}/`, f.inSite, { price: n % 1000 });
    },
  ],
  ['secret read', (b, f) => call(b, 'GET', f.secretPath, f.inSite)],
  ['get', (b, f, n) => call(b, 'GET', `${f.data}${pick(f.ids, n * 31)}/`, f.inSite)],
  [
    'delete',
    async (b, f, n) => {
      const id = fresh.shift();
      if (!id) return call(b, 'GET', `${f.data}${pick(f.ids, n)}/`, f.inSite);
      return call(b, 'DELETE', `${f.data}${id}/`, f.inSite);
    },
  ],
  ['list', (b, f) => call(b, 'GET', `${f.data}?page_size=20`, f.inSite)],
  ['me', (b, f) => call(b, 'GET', '/api/cloud/users/me/', f.admin)],
  [
    'invitation create',
    (b, f, n) =>
      call(b, 'POST', f.invitations, f.admin, {
        invitee_identifier: `soak-${n}-${randomBytes(3).toString('hex')}@example.com`,
      }),
  ],
  ['get', (b, f, n) => call(b, 'GET', `${f.data}${pick(f.ids, n * 13)}/`, f.inSite)],
  [
    'graph read',
    (b, f, n) =>
      call(b, 'GET', `${f.graph}${pick(f.leaves, n)}/?include=ancestors&relationship_type=parent`, f.inSite),
  ],
];

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

interface Row extends SoakSample {
  serverMb: number;
  postgresMb: number;
  heapUsedMb: number;
  loopDelayP99Ms: number;
  requests: number;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'soak-'));
  const probeFile = join(dataDir, 'probe.jsonl');
  process.stderr.write(
    `soak: ${seconds} s at ${rate} requests/s on ${databaseUrl ? 'PostgreSQL' : 'PGlite'}\n`,
  );
  const server = await startSoakServer(dataDir, probeFile);
  const postgresPid = databaseUrl ? undefined : postgresChildOf(server.pid);
  const failures: string[] = [];
  const rows: Row[] = [];
  try {
    const fixture = await prepare(server.baseUrl);
    let latencies: number[] = [];
    let inFlight = 0;
    let sent = 0;
    let skipped = 0;
    const started = performance.now();
    const ticker = setInterval(() => {
      if (inFlight >= maxInFlight) {
        skipped++;
        return;
      }
      const n = sent++;
      const [name, operation] = operations[n % operations.length] as [string, Operation];
      inFlight++;
      const begun = performance.now();
      operation(server.baseUrl, fixture, n)
        .then((answer) => {
          if (answer.status >= 400)
            throw new Error(`${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        })
        .then(
          () => latencies.push(performance.now() - begun),
          (error: Error) => failures.push(`${name}: ${error.message}`),
        )
        .finally(() => inFlight--);
    }, 1000 / rate);
    const sampler = setInterval(() => {
      const t = Math.round((performance.now() - started) / 1000);
      const sorted = latencies.sort((a, b) => a - b);
      latencies = [];
      const serverMb = memory(server.pid).rssMb;
      const postgresMb = postgresPid && existsSync(`/proc/${postgresPid}`) ? memory(postgresPid).rssMb : 0;
      const probe = existsSync(probeFile)
        ? (JSON.parse(readFileSync(probeFile, 'utf8').trim().split('\n').at(-1) as string) as {
            heapUsedMb: number;
            loopDelayP99Ms: number;
          })
        : { heapUsedMb: Number.NaN, loopDelayP99Ms: Number.NaN };
      const row: Row = {
        t,
        rssMb: serverMb + postgresMb,
        serverMb,
        postgresMb,
        heapUsedMb: probe.heapUsedMb,
        loopDelayP99Ms: probe.loopDelayP99Ms,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        requests: sorted.length,
      };
      rows.push(row);
      process.stderr.write(
        `${t}s rss ${serverMb.toFixed(0)}+${postgresMb.toFixed(0)} MB heap ${row.heapUsedMb} MB ` +
          `loop p99 ${row.loopDelayP99Ms} ms p50 ${row.p50Ms.toFixed(1)} p99 ${row.p99Ms.toFixed(1)} ms ` +
          `(${row.requests} ok, ${failures.length} failed)\n`,
      );
    }, sampleSeconds * 1000);
    await new Promise((done) => setTimeout(done, seconds * 1000));
    clearInterval(ticker);
    clearInterval(sampler);
    while (inFlight > 0) await new Promise((done) => setTimeout(done, 50));
    if (skipped > 0) failures.push(`${skipped} requests not sent: ${maxInFlight} already in flight`);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const verdict = soakVerdict(rows, failures.length);
  const markdown = report(rows, verdict, failures);
  const path = 'docs/benchmarks.md';
  writeFileSync(path, withSection(existsSync(path) ? readFileSync(path, 'utf8') : '', 'soak', markdown));
  process.stderr.write(
    `${verdict.pass ? 'PASS' : 'FAIL'}${verdict.reasons.map((r) => `\n- ${r}`).join('')}\n`,
  );
  for (const failure of failures.slice(0, 10)) process.stderr.write(`  ${failure}\n`);
  process.exit(verdict.pass ? 0 : 1);
}

function report(rows: readonly Row[], verdict: ReturnType<typeof soakVerdict>, failures: readonly string[]) {
  const busy = process.env.SOAK_NOTE ? `\n${process.env.SOAK_NOTE}\n` : '';
  const lines = [
    '## Soak (`npm run soak`)',
    '',
    '<!-- Written by `npm run soak` (bench/soak.ts); `npm run bench` keeps it as it is. -->',
    '',
    `Last run: ${new Date().toISOString()}, ${seconds} s at ${rate} requests/s on ` +
      `${databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'the embedded PGlite (child process)'}, mix: ` +
      `${[...new Set(operations.map(([name]) => name))].join(', ')}.${busy}`,
    '',
    `Verdict: **${verdict.pass ? 'pass' : 'fail'}**${verdict.reasons.map((reason) => `; ${reason}`).join('')}. ` +
      `Memory slope over the last two thirds ${verdict.slopeMbPerMinute.toFixed(2)} MB/min ` +
      `(${verdict.riseMb >= 0 ? '+' : ''}${verdict.riseMb.toFixed(1)} MB); p99 ${verdict.p99BaselineMs.toFixed(1)} ms ` +
      `(middle third) → ${verdict.p99FinalMs.toFixed(1)} ms (last third); ${failures.length} failed requests.`,
    '',
    `RSS (server + PostgreSQL): \`${sparkline(rows.map((row) => row.rssMb))}\` ` +
      `${Math.min(...rows.map((row) => row.rssMb)).toFixed(0)}–${Math.max(...rows.map((row) => row.rssMb)).toFixed(0)} MB`,
    '',
    `p99: \`${sparkline(rows.map((row) => row.p99Ms))}\` ` +
      `${Math.min(...rows.map((row) => row.p99Ms)).toFixed(1)}–${Math.max(...rows.map((row) => row.p99Ms)).toFixed(1)} ms`,
    '',
    '| t (s) | server RSS (MB) | PostgreSQL RSS (MB) | heap used (MB) | event-loop delay p99 (ms) | p50 (ms) | p99 (ms) | requests |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.t} | ${row.serverMb.toFixed(0)} | ${row.postgresMb.toFixed(0)} | ${row.heapUsedMb} | ` +
        `${row.loopDelayP99Ms} | ${row.p50Ms.toFixed(1)} | ${row.p99Ms.toFixed(1)} | ${row.requests} |`,
    ),
  ];
  return lines.join('\n');
}

await main();
