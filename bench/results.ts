import type { BenchConfig } from './config';
import type { GraphFixture } from './graph-setup';
import type { Machine } from './machine';
import type { RunResult } from './measure';
import type { Scenario } from './scenarios';

/** Everything one bench run found: what the report and `bench/results/latest.json` hold. */
export interface BenchResults {
  readonly command: string;
  readonly date: string;
  readonly settings: Pick<
    BenchConfig,
    'records' | 'warmupSeconds' | 'durationSeconds' | 'connections' | 'poolSize' | 'rounds'
  >;
  readonly machine: Machine;
  readonly load: { records: number; seconds: number; recordsPerSecond: number };
  /** The graph scenarios' build through the edges API, when they ran. */
  readonly graphLoad?: GraphFixture['load'];
  readonly scenarios: readonly ScenarioResult[];
  readonly memory: MemoryResult;
}

export interface ScenarioResult {
  readonly name: string;
  readonly description: string;
  readonly target: number;
  readonly runs: readonly RunResult[];
  /** Mean req/s of the server's runs. */
  readonly projectRps: number;
  readonly floorRps: number;
  /** projectRps / floorRps. */
  readonly ratio: number;
  readonly met: boolean;
  /** VmHWM of each server over this scenario's runs (MB), the peak reset before it when the kernel allows. */
  readonly projectPeakMb: number;
  readonly floorPeakMb: number;
  readonly outsideMemoryTarget: string | undefined;
}

/** Resident memory of the servers' node processes, MB. */
export interface MemoryResult {
  readonly targetMb: number;
  /** VmRSS of the project server once started, before any data. */
  readonly projectIdleMb: number;
  /** VmHWM of the project server over the bulk load. */
  readonly projectLoadPeakMb: number;
  /** VmHWM of the project server over the scenario runs (peak reset after the load when the kernel allows). */
  readonly projectRunPeakMb: number;
  readonly projectPeakReset: boolean;
  readonly projectAfterRunsMb: number;
  readonly floorRunPeakMb: number;
  readonly met: boolean;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Sums up a scenario's runs: mean req/s of each server and their ratio against the target. */
export function summarize(
  scenario: Scenario,
  runs: readonly RunResult[],
  peaks: { projectPeakMb: number; floorPeakMb: number } = {
    projectPeakMb: Number.NaN,
    floorPeakMb: Number.NaN,
  },
): ScenarioResult {
  const rps = (server: RunResult['server']) =>
    mean(runs.filter((run) => run.server === server).map((run) => run.requestsPerSecond));
  const projectRps = rps('project');
  const floorRps = rps('floor');
  const ratio = floorRps > 0 ? projectRps / floorRps : Number.NaN;
  return {
    name: scenario.name,
    description: scenario.description,
    target: scenario.target,
    runs,
    projectRps,
    floorRps,
    ratio,
    met: ratio >= scenario.target,
    ...peaks,
    outsideMemoryTarget: scenario.outsideMemoryTarget,
  };
}
