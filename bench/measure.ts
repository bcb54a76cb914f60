import autocannon from 'autocannon';
import { cpuMillis, databaseCpuMillis, type Server } from './processes';
import type { BenchRequest } from './scenarios';

/** The servers a bench measures: the project, the floor, and Directus for the peer figure (bench/peer/). */
export type ServerName = 'project' | 'floor' | 'directus';

/** One measured window of one scenario against one server. */
export interface RunResult {
  readonly server: ServerName;
  readonly round: number;
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers, socket errors and timeouts. */
  readonly errors: number;
  readonly statusCodes: Record<string, number>;
  /** CPU time (user + system) of the server's node process per completed request. */
  readonly cpuMsPerRequest: number;
  /**
   * CPU time of the PostgreSQL instance (all its processes) per completed request, when it runs on this machine;
   * NaN otherwise. On a machine whose cores the database shares, it costs throughput as the server's own CPU does.
   */
  readonly databaseCpuMsPerRequest: number;
}

interface Load {
  server: Server;
  next: () => BenchRequest;
  connections: number;
  seconds: number;
  /** The postmaster of the database, when it runs on this machine (`findPostmaster`). */
  postmaster?: number | undefined;
}

function fire(load: Load) {
  return autocannon({
    url: load.server.baseUrl,
    connections: load.connections,
    duration: load.seconds,
    timeout: 30,
    requests: [{ setupRequest: (request) => Object.assign(request, load.next()) }],
  });
}

/** Warms the server up (result discarded), then measures a window and the CPU the server spent in it. */
export async function measure(
  load: Load & { warmupSeconds: number; server: Server },
  label: { server: ServerName; round: number },
): Promise<RunResult> {
  await fire({ ...load, seconds: load.warmupSeconds });
  const database = () => (load.postmaster === undefined ? Number.NaN : databaseCpuMillis(load.postmaster));
  const cpuBefore = cpuMillis(load.server.pid);
  const databaseBefore = database();
  const result = await fire(load);
  const cpu = cpuMillis(load.server.pid) - cpuBefore;
  const databaseCpu = database() - databaseBefore;
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  return {
    ...label,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    statusCodes,
    cpuMsPerRequest: result.requests.total > 0 ? cpu / result.requests.total : Number.NaN,
    databaseCpuMsPerRequest: result.requests.total > 0 ? databaseCpu / result.requests.total : Number.NaN,
  };
}
