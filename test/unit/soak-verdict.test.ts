import { describe, expect, it } from 'vitest';
import { median, type SoakSample, slope, soakVerdict, sparkline } from '../../bench/soak-verdict';

/** 18 samples, one every 10 s (3 minutes), memory and p99 from the functions given. */
function run(rss: (t: number) => number, p99: (t: number) => number = () => 5): SoakSample[] {
  return Array.from({ length: 18 }, (_, index) => {
    const t = (index + 1) * 10;
    return { t, rssMb: rss(t), p50Ms: 2, p99Ms: p99(t) };
  });
}

describe('the soak verdict', () => {
  it('passes a flat run, warm-up growth in the first third included', () => {
    const verdict = soakVerdict(
      run((t) => (t <= 60 ? 100 + t : 160 + (t % 20 === 0 ? 1 : -1))),
      0,
    );
    expect(verdict.pass).toBe(true);
    expect(verdict.reasons).toEqual([]);
    expect(Math.abs(verdict.riseMb)).toBeLessThan(2);
  });

  it('fails memory that keeps rising over the last two thirds', () => {
    const verdict = soakVerdict(
      run((t) => 100 + t / 2),
      0,
    );
    expect(verdict.pass).toBe(false);
    expect(verdict.slopeMbPerMinute).toBeCloseTo(30);
    expect(verdict.riseMb).toBeCloseTo(55);
    expect(verdict.reasons).toEqual(['memory kept rising: +55.0 MB over the last two thirds (limit 20 MB)']);
  });

  it('passes a rise within the limit', () => {
    expect(
      soakVerdict(
        run((t) => 100 + t / 10),
        0,
      ).pass,
    ).toBe(true);
  });

  it('fails a p99 that drifted in the last third, not one that stayed within ratio and slack', () => {
    const drifted = soakVerdict(
      run(
        () => 100,
        (t) => (t > 120 ? 20 : 8),
      ),
      0,
    );
    expect(drifted.reasons).toEqual([
      'p99 drifted: 20.0 ms in the last third against 8.0 ms in the middle one (limit ×1.5 + 2 ms)',
    ]);
    expect(
      soakVerdict(
        run(
          () => 100,
          (t) => (t > 120 ? 14 : 8),
        ),
        0,
      ).pass,
    ).toBe(true);
  });

  it('fails on any failed request, and a run too short to judge', () => {
    expect(
      soakVerdict(
        run(() => 100),
        1,
      ).reasons,
    ).toEqual(['1 request failed']);
    expect(soakVerdict(run(() => 100).slice(0, 2), 0).reasons).toContain(
      'only 2 samples: too short to judge',
    );
  });

  it('computes slope, median and sparkline on fixed inputs', () => {
    expect(
      slope([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toBe(2);
    expect(slope([{ x: 1, y: 1 }])).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(sparkline([0, 7, 14])).toBe('▁▅█');
    expect(sparkline([5, 5])).toBe('▁▁');
  });
});
