// Permutation test (exact p-values enumerated by hand) and the A/B verdict with its minimum effect size.
import { describe, expect, it } from 'vitest';
import { compareSamples } from '../../harness/stats/compare.js';
import { permutationTestMedians } from '../../harness/stats/permutation.js';
import { createRng } from '../../harness/stats/random.js';

describe('permutationTestMedians', () => {
  // a = [1,2], b = [3,4]; the 6 splits of {1,2,3,4} (a-part: median(b) - median(a)):
  // {1,2}: 3.5-1.5 = 2, {1,3}: 3-2 = 1, {1,4}: 0, {2,3}: 0, {2,4}: 2-3 = -1, {3,4}: 1.5-3.5 = -2 -> |d| >= 2 in 2 of 6: p = 1/3.
  it('exact p for 2 vs 2 is 1/3', () => {
    const r = permutationTestMedians([1, 2], [3, 4]);
    expect(r).toEqual({ observed: 2, pValue: 1 / 3, method: 'exact', permutations: 6 });
  });
  // a = [1,2,3], b = [4,5,6]: observed 5 - 2 = 3; |d| = 3 for a-parts {1,2,3}, {1,2,4}, {3,5,6}, {4,5,6}: p = 4/20.
  it('exact p for 3 vs 3 is 4/20', () => {
    const r = permutationTestMedians([1, 2, 3], [4, 5, 6]);
    expect(r.pValue).toBe(0.2);
    expect(r.permutations).toBe(20);
  });
  it('Monte Carlo agrees with the exact p within 4 sd and uses the +1 correction', () => {
    const r = permutationTestMedians([1, 2], [3, 4], { method: 'monte-carlo', resamples: 9999, seed: 3 });
    expect(r.method).toBe('monte-carlo');
    expect(Math.abs(r.pValue - 1 / 3)).toBeLessThan(4 * Math.sqrt(((1 / 3) * (2 / 3)) / 9999));
    const count = r.pValue * 10000 - 1; // (count + 1) / (9999 + 1)
    expect(Math.abs(count - Math.round(count))).toBeLessThan(1e-6);
  });
  it('gives p = 1 / 10000, never 0, for fully separated samples of 20 (C(40,20) splits, only 2 as extreme)', () => {
    const a = Array.from({ length: 20 }, (_, i) => i);
    const b = a.map((x) => x + 100);
    expect(permutationTestMedians(a, b).pValue).toBe(1 / 10000);
  });
  it('exact p equals a brute-force enumeration (sort-based medians) on small samples with ties and odd/even sizes', () => {
    const rng = createRng(17);
    const median = (xs: number[]): number => {
      const s = [...xs].sort((x, y) => x - y);
      const m = s.length >> 1;
      return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
    };
    for (const [nA, nB] of [
      [2, 3],
      [3, 4],
      [4, 4],
      [5, 3],
    ] as const) {
      const a = Array.from({ length: nA }, () => rng.int(1, 6));
      const b = Array.from({ length: nB }, () => rng.int(2, 8));
      const pool = [...a, ...b];
      const obs = Math.abs(median(b) - median(a));
      let extreme = 0;
      let total = 0;
      for (let mask = 0; mask < 1 << pool.length; mask++) {
        const inA = pool.filter((_, i) => (mask >> i) & 1);
        if (inA.length !== nA) continue;
        const inB = pool.filter((_, i) => !((mask >> i) & 1));
        total++;
        if (Math.abs(median(inB) - median(inA)) >= obs - 1e-12) extreme++;
      }
      expect(permutationTestMedians(a, b).pValue).toBeCloseTo(extreme / total, 12);
    }
  });
  it('Monte Carlo matches the exact p on 5 vs 5 (252 splits) within 4 sd', () => {
    const a = [101, 98, 120, 110, 99];
    const b = [115, 130, 104, 125, 118];
    const exact = permutationTestMedians(a, b, { method: 'exact' }).pValue;
    const mc = permutationTestMedians(a, b, { method: 'monte-carlo', seed: 8 }).pValue;
    expect(Math.abs(mc - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / 9999) + 1e-4);
  });
  it('is deterministic per seed', () => {
    const rng = createRng(9);
    const a = Array.from({ length: 40 }, () => rng.uniform(100, 300));
    const b = Array.from({ length: 40 }, () => rng.uniform(110, 310));
    expect(permutationTestMedians(a, b, { seed: 4 })).toEqual(permutationTestMedians(a, b, { seed: 4 }));
  });
});

describe('compareSamples', () => {
  const rng = createRng(21);
  const base = Array.from({ length: 30 }, () => rng.uniform(100, 300)); // like process-target downtime
  it('a run against itself: no change (p = 1)', () => {
    const c = compareSamples(base, base);
    expect(c.verdict).toBe('no change');
    expect(c.diff).toBe(0);
    expect(c.pValue).toBe(1);
  });
  it('a 200 ms slower restore is a regression, and the reverse an improvement', () => {
    const slow = base.map((x) => x + 200);
    const c = compareSamples(base, slow);
    expect(c.verdict).toBe('regression');
    expect(c.diff).toBeCloseTo(200, 9);
    expect(c.ci[0]).toBeGreaterThan(100);
    expect(c.pValue).toBeLessThan(0.001);
    expect(compareSamples(slow, base).verdict).toBe('improvement');
  });
  it('a significant but tiny shift is no change: 3 ms < 5 ms, and 20 ms on ~1000 ms is 2% < 10%', () => {
    const tight = Array.from({ length: 30 }, (_, i) => 100 + i * 0.01);
    const c = compareSamples(
      tight,
      tight.map((x) => x + 3),
    );
    expect(c.pValue).toBeLessThan(0.05);
    expect(c.verdict).toBe('no change');
    const big = tight.map((x) => x * 10);
    expect(
      compareSamples(
        big,
        big.map((x) => x + 20),
      ).verdict,
    ).toBe('no change');
  });
  it('same seed, same result', () => {
    const other = base.map((x, i) => x + (i % 3) * 10);
    expect(compareSamples(base, other, { seed: 2 })).toEqual(compareSamples(base, other, { seed: 2 }));
  });
});
