/**
 * The verdict of a soak run (`npm run soak`, bench/soak.ts) from its samples: a pure function, so that its rules are
 * tested with fixed inputs (test/unit/soak-verdict.test.ts) and never depend on the machine.
 */

export interface SoakSample {
  /** Seconds since the traffic started, at the end of the sample's window. */
  readonly t: number;
  /** Resident memory of the server plus its embedded PostgreSQL child (MB). */
  readonly rssMb: number;
  /** Latency percentiles of the requests answered in the window (ms). */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface SoakLimits {
  /** The most memory may rise over the last two thirds of the run, by a least-squares line (MB). */
  readonly maxRiseMb: number;
  /** The last third's median p99 may be at most this many times the middle third's... */
  readonly maxP99Ratio: number;
  /** ...plus this many ms (small latencies jitter by whole milliseconds on a busy machine). */
  readonly p99SlackMs: number;
}

export const defaultSoakLimits: SoakLimits = { maxRiseMb: 20, maxP99Ratio: 1.5, p99SlackMs: 2 };

export interface SoakVerdict {
  readonly pass: boolean;
  readonly reasons: string[];
  /** Slope of memory over the last two thirds (MB per minute) and the rise it makes over that window. */
  readonly slopeMbPerMinute: number;
  readonly riseMb: number;
  readonly p99BaselineMs: number;
  readonly p99FinalMs: number;
}

/** Slope of the least-squares line through (x, y) points; 0 for fewer than two distinct x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - meanX) * (p.y - meanY);
    den += (p.x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Fails when memory keeps rising over the last two thirds (the first third is warm-up: caches, JIT, pools), when the
 * last third's p99 drifted above the middle third's, or when any request failed.
 */
export function soakVerdict(
  samples: readonly SoakSample[],
  failures: number,
  limits: SoakLimits = defaultSoakLimits,
): SoakVerdict {
  const reasons: string[] = [];
  const end = samples.at(-1)?.t ?? 0;
  const tail = samples.filter((sample) => sample.t > end / 3);
  const slopePerSecond = slope(tail.map((sample) => ({ x: sample.t, y: sample.rssMb })));
  const window = tail.length > 1 ? (tail.at(-1) as SoakSample).t - (tail[0] as SoakSample).t : 0;
  const riseMb = slopePerSecond * window;
  if (samples.length < 3) reasons.push(`only ${samples.length} samples: too short to judge`);
  if (riseMb > limits.maxRiseMb)
    reasons.push(
      `memory kept rising: +${riseMb.toFixed(1)} MB over the last two thirds (limit ${limits.maxRiseMb} MB)`,
    );
  const middle = samples.filter((sample) => sample.t > end / 3 && sample.t <= (2 * end) / 3);
  const last = samples.filter((sample) => sample.t > (2 * end) / 3);
  const p99BaselineMs = median(middle.map((sample) => sample.p99Ms));
  const p99FinalMs = median(last.map((sample) => sample.p99Ms));
  if (middle.length > 0 && p99FinalMs > p99BaselineMs * limits.maxP99Ratio + limits.p99SlackMs)
    reasons.push(
      `p99 drifted: ${p99FinalMs.toFixed(1)} ms in the last third against ${p99BaselineMs.toFixed(1)} ms in the ` +
        `middle one (limit ×${limits.maxP99Ratio} + ${limits.p99SlackMs} ms)`,
    );
  if (failures > 0) reasons.push(`${failures} request${failures === 1 ? '' : 's'} failed`);
  return {
    pass: reasons.length === 0,
    reasons,
    slopeMbPerMinute: slopePerSecond * 60,
    riseMb,
    p99BaselineMs,
    p99FinalMs,
  };
}

/** A one-line plot of a series (▁ to █, scaled from its minimum to its maximum). */
export function sparkline(values: readonly number[]): string {
  const bars = '▁▂▃▄▅▆▇█';
  const min = Math.min(...values);
  const max = Math.max(...values);
  return values
    .map((value) => bars[max === min ? 0 : Math.round(((value - min) / (max - min)) * (bars.length - 1))])
    .join('');
}
