// Percentile bootstrap: determinism per seed, and exact intervals where the bootstrap distribution is known by hand.
import { describe, expect, it } from 'vitest';
import { bootstrapCi } from '../../harness/stats/bootstrap.js';
import { mean } from '../../harness/stats/distribution.js';
import { quantileSorted } from '../../harness/stats/quantile.js';

const p95 = (s: ArrayLike<number>): number => quantileSorted(s, 0.95);
const meanOf = (s: ArrayLike<number>): number => mean(s) ?? Number.NaN;
const sample = [120, 135, 101, 180, 99, 143, 150, 160, 111, 133, 240, 128, 119, 170, 105, 125, 131, 138, 142, 300];

describe('bootstrapCi', () => {
  it('gives the same interval for the same seed and a different one for another seed', () => {
    const a = bootstrapCi(sample, p95, { seed: 5 });
    const b = bootstrapCi(sample, p95, { seed: 5 });
    const c = bootstrapCi(sample, meanOf, { seed: 6 });
    const d = bootstrapCi(sample, meanOf, { seed: 7 });
    expect(a).toEqual(b);
    expect(c).not.toEqual(d);
    expect(a?.resamples).toBe(2000);
  });
  it('brackets the estimate', () => {
    const ci = bootstrapCi(sample, meanOf);
    expect(ci?.estimate).toBeCloseTo(146.5, 12); // sum 2930 / 20
    expect(ci!.lo).toBeLessThan(146.5);
    expect(ci!.hi).toBeGreaterThan(146.5);
  });
  it('[0, 1] mean: replicates are 0, 0.5, 1 with prob 1/4, 1/2, 1/4, so the 95% interval is exactly [0, 1]', () => {
    expect(bootstrapCi([0, 1], meanOf)).toMatchObject({ estimate: 0.5, lo: 0, hi: 1 });
  });
  it('a constant sample has a zero-width interval; an empty one has none', () => {
    expect(bootstrapCi([7, 7, 7], p95)).toMatchObject({ estimate: 7, lo: 7, hi: 7 });
    expect(bootstrapCi([], p95)).toBeNull();
  });
});
