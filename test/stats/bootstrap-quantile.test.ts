// The order-statistic bootstrap of a quantile must agree with plain resampling (same distribution, different random stream).
import { describe, expect, it } from 'vitest';
import { bootstrapCiSorted } from '../../harness/stats/bootstrap.js';
import { bootstrapQuantileCi } from '../../harness/stats/bootstrap-quantile.js';
import { quantileSorted } from '../../harness/stats/quantile.js';
import { createRng } from '../../harness/stats/random.js';
import { sortSample } from '../../harness/stats/sorted.js';

describe('bootstrapQuantileCi', () => {
  const rng = createRng(12);
  const sorted = sortSample(Array.from({ length: 400 }, () => 100 + 200 * rng.next() ** 2));
  it.each([0.5, 0.9, 0.95, 0.99])('p%d: interval ends match 20,000-resample plain resampling to within 1 percent', (p) => {
    const fast = bootstrapQuantileCi(sorted, p, { resamples: 20_000 });
    const slow = bootstrapCiSorted(sorted, (s) => quantileSorted(s, p), { resamples: 20_000 });
    expect(fast?.estimate).toBe(slow?.estimate);
    expect(Math.abs(fast!.lo - slow!.lo) / slow!.lo).toBeLessThan(0.01);
    expect(Math.abs(fast!.hi - slow!.hi) / slow!.hi).toBeLessThan(0.01);
  });
  // Exact bootstrap law of the median rank: with values 0..100 (n = 101), the resample median is rank R* and
  // P(R* <= j) = P(Binomial(101, (j + 1) / 101) >= 51). Its 2.5%, 25%, 75%, 97.5% quantiles are integers.
  it('matches the exact bootstrap distribution of a median rank (binomial), for both bootstrap methods', () => {
    const n = 101;
    const tail = (j: number): number => {
      const q = (j + 1) / n;
      let pmf = (1 - q) ** n; // P(Bin = 0)
      let below = 0;
      for (let x = 0; x < 51; x++) {
        below += pmf;
        pmf *= ((n - x) / (x + 1)) * (q / (1 - q));
      }
      return 1 - below; // P(Bin >= 51)
    };
    const exactQuantile = (prob: number): number => {
      let j = 0;
      while (tail(j) < prob) j++;
      return j;
    };
    const ranks = Array.from({ length: n }, (_, i) => i);
    for (const level of [0.95, 0.5]) {
      const lo = exactQuantile((1 - level) / 2);
      const hi = exactQuantile(1 - (1 - level) / 2);
      const fast = bootstrapQuantileCi(ranks, 0.5, { level, resamples: 20_000 });
      const slow = bootstrapCiSorted(ranks, (s) => quantileSorted(s, 0.5), { level, resamples: 20_000 });
      for (const ci of [fast, slow]) {
        expect(Math.abs(ci!.lo - lo)).toBeLessThanOrEqual(0.5);
        expect(Math.abs(ci!.hi - hi)).toBeLessThanOrEqual(0.5);
      }
    }
  });
  it('reproduces the exact [0, 1] interval for the median of [0, 1] (resample medians 0, 0.5, 1 w.p. 1/4, 1/2, 1/4)', () => {
    expect(bootstrapQuantileCi([0, 1], 0.5)).toMatchObject({ estimate: 0.5, lo: 0, hi: 1 });
  });
  it('is deterministic per seed, null on empty, and fast on 1e6 values', () => {
    expect(bootstrapQuantileCi(sorted, 0.95, { seed: 3 })).toEqual(bootstrapQuantileCi(sorted, 0.95, { seed: 3 }));
    expect(bootstrapQuantileCi([], 0.5)).toBeNull();
    const big = sortSample(Array.from({ length: 1_000_000 }, (_, i) => i));
    const t0 = performance.now();
    const ci = bootstrapQuantileCi(big, 0.95);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(ci!.lo).toBeLessThan(949_999.05);
    expect(ci!.hi).toBeGreaterThan(949_999.05);
  });
});
