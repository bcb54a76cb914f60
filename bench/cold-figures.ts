import { toEvent } from '../shared/host/local/http-server';
import type { HttpEvent } from '../shared/http/handler';
import type { Machine } from './machine';
import { median } from './peer/figures';
import { benchHeaders, fakeRequest } from './pipeline';
import { tableName } from './setup';

/**
 * The pure part of `npm run bench:cold` (bench/cold.ts): the request each group's bundled handler serves first,
 * the event it gets, what a probe process reports, the medians, and the `cold` region of docs/benchmarks.md.
 */

/** What the cold-start requests need of the loaded project. */
export interface ColdFixture {
  readonly token: string;
  readonly org: string;
  readonly site: string;
  readonly app: string;
  readonly secretKey: string;
  readonly recordId: string;
}

/** One group's first request: a real one against the local stores, answered with `status`. */
export interface ColdRequest {
  readonly group: string;
  /** What the request does, for the region. */
  readonly what: string;
  readonly method: 'GET';
  /** Path and query string. */
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly status: number;
}

/**
 * Each group's request: a signed-in read that goes through the whole pipeline (token, who and where, permission,
 * the operation and its store): the cheapest route of the group that does, so the figure is the group's fixed cost
 * of a cold container and not one operation's work. meta and pages serve documents: no store read.
 */
export function coldRequests(fixture: ColdFixture): ColdRequest[] {
  const headers = benchHeaders(fixture, false);
  const admin = Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'x-site'));
  const anonymous = { host: headers.host, connection: headers.connection };
  const get = (
    group: string,
    what: string,
    url: string,
    sent: Record<string, string> = headers,
  ): ColdRequest => ({
    group,
    what,
    method: 'GET',
    url,
    headers: sent,
    status: 200,
  });
  return [
    get('auth', "the site's social apps (`GET /api/auth/social-apps/`)", '/api/auth/social-apps/'),
    get('accounts', 'the signed-in user (`GET /api/cloud/users/me/`)', '/api/cloud/users/me/', admin),
    get('roles', "the site's roles (`GET /api/roles/`)", '/api/roles/'),
    get(
      'secrets',
      'a private app-level secret, decrypted (`GET /api/secrets/{key}/?app=…`)',
      `/api/secrets/${fixture.secretKey}/?app=${fixture.app}`,
    ),
    get(
      'data',
      'one record by id, G1 (`GET /api/apps/{app}/datatables/items/data/{id}/`)',
      `/api/apps/${fixture.app}/datatables/${tableName}/data/${fixture.recordId}/`,
    ),
    get('meta', 'the OpenAPI document (`GET /ninja-openapi.json`)', '/ninja-openapi.json', anonymous),
    get(
      'invitations',
      "the organization's invitations (`GET /api/cloud/organizations/{org}/invitations/`)",
      `/api/cloud/organizations/${fixture.org}/invitations/`,
      admin,
    ),
    get(
      'events',
      "the app's functions (`GET /api/apps/{app}/functions/`)",
      `/api/apps/${fixture.app}/functions/`,
    ),
    get('pages', 'the sign-in page (`GET /sign-in`)', `/sign-in?site=${fixture.site}`, anonymous),
  ];
}

/** The API Gateway event of a request, as the local server makes it (`toEvent`). */
export function coldEvent(request: ColdRequest): HttpEvent {
  return toEvent(fakeRequest(request.method, request.url, request.headers), Buffer.alloc(0));
}

/** What one probe process (bench/cold-probe.mjs) printed. */
export interface ColdSample {
  /** Node.js's own start: from the process's beginning to the probe module running. */
  readonly startMs: number;
  readonly importMs: number;
  readonly firstMs: number;
  readonly warmMs: readonly number[];
  readonly statuses: readonly number[];
  readonly firstBody?: string;
  readonly rssMb: number;
}

/** The probe's line, or why it is not one the bench can use (a status other than `status`, a missing figure). */
export function parseSample(output: string, status: number): ColdSample {
  const line = output.trim().split('\n').at(-1) ?? '';
  let sample: ColdSample;
  try {
    sample = JSON.parse(line) as ColdSample;
  } catch {
    throw new Error(`the probe printed no JSON line: ${output.slice(-300)}`);
  }
  for (const key of ['startMs', 'importMs', 'firstMs', 'rssMb'] as const)
    if (typeof sample[key] !== 'number' || !Number.isFinite(sample[key]))
      throw new Error(`the probe's ${key} is ${JSON.stringify(sample[key])}`);
  if (!Array.isArray(sample.warmMs) || sample.warmMs.length === 0)
    throw new Error('the probe made no warm request');
  const wrong = sample.statuses.find((code) => code !== status);
  if (wrong !== undefined)
    throw new Error(
      `answered ${wrong} instead of ${status}${sample.firstBody ? `: ${sample.firstBody}` : ''}`,
    );
  return sample;
}

/** One group's medians over its fresh processes. */
export interface ColdFigures {
  readonly group: string;
  readonly samples: number;
  readonly startMs: number;
  readonly importMs: number;
  readonly firstMs: number;
  /** Import plus first request: what the first caller of a new container waits for, beyond the runtime's start. */
  readonly coldMs: number;
  /** The median of each process's warm requests, then the median over the processes. */
  readonly warmMs: number;
  readonly rssMb: number;
}

export function coldFigures(group: string, samples: readonly ColdSample[]): ColdFigures {
  const of = (pick: (sample: ColdSample) => number) => median(samples.map(pick));
  return {
    group,
    samples: samples.length,
    startMs: of((sample) => sample.startMs),
    importMs: of((sample) => sample.importMs),
    firstMs: of((sample) => sample.firstMs),
    coldMs: of((sample) => sample.importMs + sample.firstMs),
    warmMs: of((sample) => median(sample.warmMs)),
    rssMb: of((sample) => sample.rssMb),
  };
}

export interface ColdReport {
  readonly date: string;
  readonly command: string;
  readonly machine: Machine;
  readonly runs: number;
  readonly warm: number;
  readonly records: number;
  /** `uptime` before and after the samples. */
  readonly uptime: { before: string; after: string };
  readonly requests: readonly ColdRequest[];
  readonly figures: readonly ColdFigures[];
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');

/** The `cold` region of docs/benchmarks.md (without its markers). */
export function renderColdRegion(report: ColdReport, contention: string | undefined): string {
  const what = new Map(report.requests.map((request) => [request.group, request.what]));
  return [
    '## Cold start per group (`npm run bench:cold`)',
    '',
    '<!-- Written by `npm run bench:cold` (bench/cold.ts); `npm run bench` keeps it as it is. -->',
    '',
    `Last run: ${report.date}. Command: \`${report.command}\`.`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGb} GB; Node.js ${report.machine.node}; PostgreSQL ${report.machine.postgres}.`,
    `The machine is shared: \`uptime\` before the samples \`${report.uptime.before}\`, after \`${report.uptime.after}\`.`,
    ...(contention ? ['', contention] : []),
    '',
    `What a Lambda user pays on a new container, per endpoint group: a fresh Node.js process imports the group's bundle as \`npm run build\` writes it (\`dist/<group>/index.mjs\`) and its handler serves one real request (a signed-in read through the whole pipeline, against a PostgreSQL 15 and the embedded DynamoDB holding a project of ${report.records} records), then ${report.warm} more in the same process (warm). The handler runs with the local runtime's configuration (keys from the data directory instead of KMS; the DynamoDB and PostgreSQL connections are opened by the first request, as in a Lambda). ${report.runs} processes per group; medians. "Node.js start" is the process's own start before the bundle is imported (the Lambda runtime's share, not the project's); "cold" is import plus first request.`,
    '',
    '| group | first request | Node.js start (ms) | import (ms) | first request (ms) | cold: import + first (ms) | warm request (ms) | RSS after (MB) |',
    '|---|---|---|---|---|---|---|---|',
    ...report.figures.map(
      (figure) =>
        `| ${figure.group} | ${what.get(figure.group) ?? ''} | ${ms(figure.startMs)} | ${ms(figure.importMs)} | ${ms(figure.firstMs)} | **${ms(figure.coldMs)}** | ${ms(figure.warmMs)} | ${ms(figure.rssMb)} |`,
    ),
  ].join('\n');
}
