// Percentile bootstrap: determinism per seed, and exact intervals where the bootstrap distribution is known by hand.
import { describe, expect, it } from 'vitest';
import {
  bootstrapCiSorted,
  type BootstrapCi,
  type BootstrapOptions,
  type SortedStatistic,
} from '../../harness/stats/bootstrap.js';
import { mean } from '../../harness/stats/distribution.js';
import { quantileSorted } from '../../harness/stats/quantile.js';
import { sortSample } from '../../harness/stats/sorted.js';

const p95 = (s: ArrayLike<number>): number => quantileSorted(s, 0.95);
const meanOf = (s: ArrayLike<number>): number => mean(s) ?? Number.NaN;
// The statistic over a sample in any order (sorted once here, as metrics.ts does).
const ciOf = (values: number[], statistic: SortedStatistic, options?: BootstrapOptions): BootstrapCi | null =>
  bootstrapCiSorted(sortSample(values), statistic, options);
const sample = [120, 135, 101, 180, 99, 143, 150, 160, 111, 133, 240, 128, 119, 170, 105, 125, 131, 138, 142, 300];

describe('bootstrapCiSorted', () => {
  it('gives the same interval for the same seed and a different one for another seed', () => {
    const a = ciOf(sample, p95, { seed: 5 });
    const b = ciOf(sample, p95, { seed: 5 });
    const c = ciOf(sample, meanOf, { seed: 6 });
    const d = ciOf(sample, meanOf, { seed: 7 });
    expect(a).toEqual(b);
    expect(c).not.toEqual(d);
    expect(a?.resamples).toBe(2000);
  });
  it('brackets the estimate', () => {
    const ci = ciOf(sample, meanOf);
    expect(ci?.estimate).toBeCloseTo(146.5, 12); // sum 2930 / 20
    expect(ci!.lo).toBeLessThan(146.5);
    expect(ci!.hi).toBeGreaterThan(146.5);
  });
  it('[0, 1] mean: replicates are 0, 0.5, 1 with prob 1/4, 1/2, 1/4, so the 95% interval is exactly [0, 1]', () => {
    expect(ciOf([0, 1], meanOf)).toMatchObject({ estimate: 0.5, lo: 0, hi: 1 });
  });
  it('a constant sample has a zero-width interval; an empty one has none', () => {
    expect(ciOf([7, 7, 7], p95)).toMatchObject({ estimate: 7, lo: 7, hi: 7 });
    expect(ciOf([], p95)).toBeNull();
  });
});
