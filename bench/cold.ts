import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { withSection } from '../bin/doc-sections';
import { groups, routesOf } from '../functions/groups';
import { registry } from '../functions/registry';
import { bundleGroup } from '../infra/bundling';
import { loadConfig } from '../shared/config';
import { startEmbeddedDynamoDb } from '../shared/host/local/embedded-dynamodb';
import { startLocalPlatform } from '../shared/host/local/runtime';
import {
  type ColdFigures,
  type ColdRequest,
  type ColdSample,
  coldEvent,
  coldFigures,
  coldRequests,
  parseSample,
  renderColdRegion,
} from './cold-figures';
import { describeMachine } from './machine';
import { contentionNote } from './peer/figures';
import { openDatabase } from './postgres';
import { prepareProject } from './setup';

/**
 * `npm run bench:cold`: the cold start of each endpoint group's Lambda bundle. Builds the bundles as `npm run build`
 * does (dist/<group>/), sets a project up on a throwaway PostgreSQL 15 (port 55438) and an embedded DynamoDB, then
 * for each group starts COLD_RUNS (default 5) fresh Node.js processes (bench/cold-probe.mjs), each importing the
 * bundle and serving the group's first request and COLD_WARM (default 5) warm ones; writes the medians to the `cold`
 * region of docs/benchmarks.md. COLD_GROUPS=data,auth measures some groups only.
 */

const root = resolve(import.meta.dirname, '..');
process.chdir(root);
const say = (line: string) => process.stdout.write(`${line}\n`);
const run = promisify(execFile);
const runs = Number(process.env.COLD_RUNS ?? 5);
const warm = Number(process.env.COLD_WARM ?? 5);
const records = 1000;
const instance = { port: 55438, dir: '/tmp/platform-bench-cold-pg' };
/** Tokens name their issuer: the handlers in the probes must expect the one the platform signs with. */
const issuer = 'http://127.0.0.1:3000';

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/\s+/g, ' ');

function commandLine(): string {
  const settings = Object.entries(process.env)
    .filter(([key]) => key.startsWith('COLD_'))
    .map(([key, value]) => `${key}=${value}`);
  return [...settings, 'npm run bench:cold'].join(' ');
}

function selectedGroups(): string[] {
  const all = Object.values(groups)
    .filter((group) => routesOf(group.name).length > 0)
    .map((group) => group.name as string);
  const asked = process.env.COLD_GROUPS?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked) return all;
  const unknown = asked.filter((name) => !all.includes(name));
  if (unknown.length > 0)
    throw new Error(`Unknown group(s) ${unknown.join(', ')}; groups: ${all.join(', ')}`);
  return all.filter((name) => asked.includes(name));
}

/** One fresh process: import the bundle, serve the request cold, then warm. */
async function sample(bundle: string, request: ColdRequest, env: NodeJS.ProcessEnv): Promise<ColdSample> {
  const { stdout } = await run(process.execPath, ['bench/cold-probe.mjs'], {
    env: {
      ...env,
      COLD_HANDLER: pathToFileURL(bundle).href,
      COLD_EVENT: JSON.stringify(coldEvent(request)),
      COLD_WARM: String(warm),
    },
    timeout: 60_000,
    maxBuffer: 1 << 20,
  });
  return parseSample(stdout, request.status);
}

async function main(): Promise<void> {
  const names = selectedGroups();
  say(`Building ${names.length} bundles as npm run build does (dist/<group>/)`);
  const bundles = new Map<string, string>();
  for (const name of names) {
    const outdir = `dist/${name}`;
    rmSync(outdir, { recursive: true, force: true });
    bundleGroup(name, outdir);
    bundles.set(name, resolve(outdir, 'index.mjs'));
  }

  say(`Starting PostgreSQL 15 (port ${instance.port}) and the embedded DynamoDB`);
  const database = await openDatabase(process.env.DATABASE_URL || undefined, instance);
  const dynamo = await startEmbeddedDynamoDb();
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-cold-'));
  const password = randomBytes(18).toString('base64url');
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: dynamo.url,
    JWT_ISSUER: issuer,
    LOG_LEVEL: 'silent',
    AWS_REGION: 'us-east-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const platform = await startLocalPlatform(
    loadConfig({ ...env, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: password, LOG_LEVEL: 'warn' }),
    registry,
    { persist: false },
  );
  try {
    say(`Setting a project up through the API (${records} records)`);
    const fixture = await prepareProject(platform.baseUrl, database.url, password, records);
    const organizations = await fetch(`${platform.baseUrl}/api/cloud/organizations/`, {
      headers: { authorization: `Bearer ${fixture.token}` },
    });
    const list = (await organizations.json()) as { results?: { slug: string }[]; data?: { slug: string }[] };
    const org = (list.results ?? list.data ?? [])[0]?.slug;
    if (!org) throw new Error(`no organization in ${JSON.stringify(list).slice(0, 200)}`);
    const requests = coldRequests({
      ...fixture,
      org,
      recordId: fixture.ids[Math.floor(fixture.ids.length / 2)] as string,
    }).filter((request) => names.includes(request.group));

    const before = uptime();
    const figures: ColdFigures[] = [];
    for (const request of requests) {
      const bundle = bundles.get(request.group) as string;
      const samples: ColdSample[] = [];
      for (let n = 0; n < runs; n++) {
        try {
          samples.push(await sample(bundle, request, env));
        } catch (error) {
          throw new Error(`${request.group}: ${(error as Error).message}`);
        }
      }
      const figure = coldFigures(request.group, samples);
      say(
        `  ${request.group}: import ${figure.importMs.toFixed(1)} ms, first request ${figure.firstMs.toFixed(1)} ms, warm ${figure.warmMs.toFixed(1)} ms`,
      );
      figures.push(figure);
    }
    const after = uptime();
    const machine = describeMachine(database.version);
    const report = {
      date: new Date().toISOString(),
      command: commandLine(),
      machine,
      runs,
      warm,
      records,
      uptime: { before, after },
      requests,
      figures,
    };
    const markdownPath = 'docs/benchmarks.md';
    const previous = existsSync(markdownPath) ? readFileSync(markdownPath, 'utf8') : '# Benchmarks\n';
    const region = renderColdRegion(
      report,
      contentionNote(
        report.uptime,
        machine.cores,
        'every time here is longer than on a machine to itself (a process waits for a core), the import and first request most; a run on a machine to itself is still to be done.',
      ),
    );
    writeFileSync(markdownPath, withSection(previous, 'cold', region));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/cold.json', `${JSON.stringify(report, null, 2)}\n`);
    say('Wrote the cold region of docs/benchmarks.md and bench/results/cold.json');
  } finally {
    await platform.stop();
    await dynamo.stop();
    database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`bench:cold failed: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
