import type { Machine } from '../machine';
import type { RunResult, ServerName } from '../measure';

/**
 * The pure part of the peer run (`npm run bench:peer`): whether the three servers return the same page, the
 * median ratios of their runs, and the `peer` region of docs/benchmarks.md (the requests and the record checks are
 * in requests.ts).
 */

/** What one server answered to a list (L1, Q1): the page's keys in order and the total it reported. */
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

/** One scenario of the peer run: what each server was asked, what was checked before, and its runs. */
export interface PeerScenarioReport {
  readonly name: string;
  readonly description: string;
  /** Minimum project/Directus ratio of median req/s. */
  readonly target: number;
  readonly requests: Readonly<Record<ServerName, string>>;
  /** What was checked before the runs (a sentence: the servers answer the same thing). */
  readonly checked: string;
  readonly runs: readonly RunResult[];
}

/** Everything the `peer` region shows. */
export interface PeerReport {
  readonly date: string;
  readonly command: string;
  readonly machine: Machine;
  readonly directusVersion: string;
  /** How Directus was called: without credentials through the public policy, or with the admin's static token. */
  readonly auth: 'public' | 'token';
  readonly records: number;
  readonly settings: {
    connections: number;
    poolSize: number;
    warmupSeconds: number;
    durationSeconds: number;
    rounds: number;
  };
  /** `uptime` before and after the runs: the machine is shared. */
  readonly uptime: { before: string; after: string };
  readonly indexes: readonly string[];
  readonly scenarios: readonly PeerScenarioReport[];
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** The 1-minute load average in an `uptime` line, NaN when it has none. */
export function loadOf(uptime: string): number {
  const match = /load average:\s*([\d.]+)/.exec(uptime);
  return match ? Number(match[1]) : Number.NaN;
}

/** What contention does to the peer figures. */
const peerConsequence =
  'every server got less CPU than the runs asked for; the ratios of one round are closer to the truth than the req/s, and a run on a machine to itself is still to be done.';

/**
 * A sentence when the machine was busier than its cores before or after the runs (other work competing for them):
 * the figures were taken under contention and say less than on a machine to itself; `consequence` says how.
 */
export function contentionNote(
  uptime: { before: string; after: string },
  cores: number,
  consequence = peerConsequence,
): string | undefined {
  const loads = [loadOf(uptime.before), loadOf(uptime.after)].filter(Number.isFinite);
  const highest = Math.max(...loads);
  if (loads.length === 0 || highest <= cores) return undefined;
  return `**Taken under contention**: the load average reached ${highest.toFixed(2)} on ${cores} cores (other work was running), so ${consequence}`;
}

function runRow(run: RunResult): string {
  const codes = Object.entries(run.statusCodes)
    .map(([code, count]) => `${code}: ${count}`)
    .join(', ');
  return `| ${run.round} | ${run.server} | ${fixed(run.requestsPerSecond, 1)} | ${fixed(run.p50Ms, 1)} | ${fixed(run.p99Ms, 1)} | ${run.errors} | ${fixed(run.cpuMsPerRequest, 2)} | ${codes} |`;
}

function summaryRow(scenario: PeerScenarioReport): string {
  const figures = peerFigures(scenario.runs);
  const met = figures.projectOverDirectus >= scenario.target ? 'met' : '**not met**';
  const rps = figures.medianRps;
  return `| ${scenario.name} | ${fixed(rps.project, 1)} | ${fixed(rps.directus, 1)} | ${fixed(rps.floor, 1)} | **${fixed(figures.projectOverDirectus, 2)}** | >= ${scenario.target} | ${met} | ${fixed(figures.projectOverFloor, 3)} | ${fixed(figures.directusOverFloor, 3)} |`;
}

function scenarioSection(scenario: PeerScenarioReport): string[] {
  return [
    `### ${scenario.name}: ${scenario.description}`,
    '',
    '| server | request |',
    '|---|---|',
    ...(['project', 'directus', 'floor'] as const).map(
      (name) => `| ${name} | \`${scenario.requests[name]}\` |`,
    ),
    '',
    `Checked before the runs: ${scenario.checked}.`,
    '',
    '| round | server | req/s | p50 ms | p99 ms | errors | node CPU ms/req | status codes |',
    '|---|---|---|---|---|---|---|---|',
    ...scenario.runs.map(runRow),
    '',
  ];
}

/** The `peer` region of docs/benchmarks.md (without its markers). */
export function renderPeerRegion(report: PeerReport): string {
  const { machine, settings } = report;
  const called =
    report.auth === 'public'
      ? 'without credentials (read and create permissions on `items` for the public policy)'
      : "with the admin's static token (`Authorization: Bearer`)";
  const contention = contentionNote(report.uptime, machine.cores);
  return [
    '## Peer: Directus on the same PostgreSQL (`npm run bench:peer`)',
    '',
    `<!-- Written by \`npm run bench:peer\` (bench/peer/run.ts); \`npm run bench\` keeps it as it is. -->`,
    '',
    `Last run: ${report.date}. Command: \`${report.command}\`.`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB; Node.js ${machine.node}; PostgreSQL ${machine.postgres}; Directus ${report.directusVersion}.`,
    `The machine is shared: \`uptime\` before the runs \`${report.uptime.before}\`, after \`${report.uptime.after}\`.`,
    ...(contention ? ['', contention] : []),
    '',
    `${report.records} records, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per run, a pool of ${settings.poolSize} on every server, ${settings.rounds} rounds per scenario alternated project, Directus, floor. Directus was called ${called}. The project's table and Directus's copy of it (its own database in the same PostgreSQL, with the same column defaults) have the indexes ${report.indexes.map((index) => `\`${index}\``).join(', ')}; both were VACUUM ANALYZEd.`,
    '',
    'Medians of the rounds, req/s:',
    '',
    '| scenario | project | Directus | floor | project / Directus | target | | project / floor | Directus / floor |',
    '|---|---|---|---|---|---|---|---|---|',
    ...report.scenarios.map(summaryRow),
    '',
    ...report.scenarios.flatMap(scenarioSection),
  ]
    .join('\n')
    .trimEnd();
}
