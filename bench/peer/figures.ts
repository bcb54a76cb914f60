import type { Machine } from '../machine';
import type { RunResult, ServerName } from '../measure';

/**
 * The pure part of the peer run (`npm run bench:peer`): whether the three servers return the same page, the
 * median ratios of their runs, and the `peer` region of docs/benchmarks.md.
 */

/** What one server answered to Q1's shape: the page's keys in order and the total it reported. */
export interface Page {
  readonly ids: readonly string[];
  readonly total: number;
}

/** The page of an answer: `{data: [{id}], total}` (project, floor) or `{data, meta: {filter_count}}` (Directus). */
export function pageOf(body: unknown): Page {
  const answer = (body ?? {}) as { data?: unknown; total?: unknown; meta?: { filter_count?: unknown } };
  if (!Array.isArray(answer.data)) throw new Error(`no data array in ${JSON.stringify(body).slice(0, 200)}`);
  const ids = answer.data.map((row) => String((row as { id?: unknown }).id));
  const total = Number(answer.total ?? answer.meta?.filter_count);
  return { ids, total };
}

/** Why the pages differ (the first difference), or undefined when every server returned the same keys in order. */
export function pageMismatch(pages: Readonly<Record<ServerName, Page>>): string | undefined {
  const { project } = pages;
  if (project.ids.length === 0) return 'the project returned an empty page';
  for (const name of ['floor', 'directus'] as const) {
    const other = pages[name];
    if (other.total !== project.total)
      return `${name} total ${other.total} != project total ${project.total}`;
    if (other.ids.length !== project.ids.length)
      return `${name} returned ${other.ids.length} rows, the project ${project.ids.length}`;
    const at = project.ids.findIndex((id, index) => other.ids[index] !== id);
    if (at >= 0) return `${name} row ${at + 1} is ${other.ids[at]}, the project's is ${project.ids[at]}`;
  }
  return undefined;
}

/** The median of the values (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export interface PeerFigures {
  readonly medianRps: Readonly<Record<ServerName, number>>;
  readonly projectOverDirectus: number;
  readonly projectOverFloor: number;
  readonly directusOverFloor: number;
}

/** Median req/s of each server over its runs and the ratios of those medians. */
export function peerFigures(runs: readonly RunResult[]): PeerFigures {
  const of = (server: ServerName) =>
    median(runs.filter((run) => run.server === server).map((run) => run.requestsPerSecond));
  const medianRps = { project: of('project'), directus: of('directus'), floor: of('floor') };
  const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN);
  return {
    medianRps,
    projectOverDirectus: ratio(medianRps.project, medianRps.directus),
    projectOverFloor: ratio(medianRps.project, medianRps.floor),
    directusOverFloor: ratio(medianRps.directus, medianRps.floor),
  };
}

/** Everything the `peer` region shows. */
export interface PeerReport {
  readonly date: string;
  readonly command: string;
  readonly machine: Machine;
  readonly directusVersion: string;
  /** How Directus was read: without credentials through the public policy, or with the admin's static token. */
  readonly auth: 'public' | 'token';
  readonly records: number;
  readonly settings: {
    connections: number;
    poolSize: number;
    warmupSeconds: number;
    durationSeconds: number;
  };
  /** `uptime` before and after the runs: the machine is shared. */
  readonly uptime: { before: string; after: string };
  readonly requests: Readonly<Record<ServerName, string>>;
  readonly page: Page;
  readonly indexes: readonly string[];
  readonly runs: readonly RunResult[];
  /** Minimum project/Directus ratio. */
  readonly target: number;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function runRow(run: RunResult): string {
  const codes = Object.entries(run.statusCodes)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');
  return `| ${run.round} | ${run.server} | ${fixed(run.requestsPerSecond, 1)} | ${fixed(run.p50Ms, 1)} | ${fixed(run.p99Ms, 1)} | ${run.errors} | ${fixed(run.cpuMsPerRequest, 2)} | ${codes} |`;
}

/** The `peer` region of docs/benchmarks.md (without its markers). */
export function renderPeerRegion(report: PeerReport): string {
  const figures = peerFigures(report.runs);
  const { machine, settings } = report;
  const met = figures.projectOverDirectus >= report.target ? 'met' : '**not met**';
  const read =
    report.auth === 'public'
      ? 'publicly (no credentials; a read permission on `items` for the public policy)'
      : "with the admin's static token (`Authorization: Bearer`)";
  return [
    '## Peer: Directus on the same PostgreSQL (`npm run bench:peer`)',
    '',
    `<!-- Written by \`npm run bench:peer\` (bench/peer/run.ts); \`npm run bench\` keeps it as it is. -->`,
    '',
    `Last run: ${report.date}. Command: \`${report.command}\`.`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB; Node.js ${machine.node}; PostgreSQL ${machine.postgres}; Directus ${report.directusVersion}.`,
    `The machine is shared: \`uptime\` before the runs \`${report.uptime.before}\`, after \`${report.uptime.after}\`.`,
    '',
    `Q1's shape on ${report.records} records, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per run, a pool of ${settings.poolSize} on every server, alternated project, Directus, floor. Directus was read ${read}.`,
    '',
    '| server | request |',
    '|---|---|',
    ...(['project', 'directus', 'floor'] as const).map(
      (name) => `| ${name} | \`${report.requests[name]}\` |`,
    ),
    '',
    `Checked before the runs: the three return the same ${report.page.ids.length} ids in the same order and the same total (${report.page.total}). Indexes of both copies: ${report.indexes.map((index) => `\`${index}\``).join(', ')}; both tables were VACUUM ANALYZEd.`,
    '',
    '| median | req/s |',
    '|---|---|',
    `| project | ${fixed(figures.medianRps.project, 1)} |`,
    `| Directus | ${fixed(figures.medianRps.directus, 1)} |`,
    `| floor | ${fixed(figures.medianRps.floor, 1)} |`,
    '',
    '| ratio of medians | value |',
    '|---|---|',
    `| project / Directus | **${fixed(figures.projectOverDirectus, 2)}** (target >= ${report.target}: ${met}) |`,
    `| project / floor | ${fixed(figures.projectOverFloor, 3)} |`,
    `| Directus / floor | ${fixed(figures.directusOverFloor, 3)} |`,
    '',
    '| round | server | req/s | p50 ms | p99 ms | errors | node CPU ms/req | status codes |',
    '|---|---|---|---|---|---|---|---|',
    ...report.runs.map(runRow),
  ].join('\n');
}
