// Type-7 quantiles (R default) and the distribution summary, against hand computation (and numpy.quantile, method "linear").
import { describe, expect, it } from 'vitest';
import { summarize, summarizeSorted } from '../../harness/stats/distribution.js';
import { medianSorted, quantileSorted } from '../../harness/stats/quantile.js';
import { sortSample } from '../../harness/stats/sorted.js';

const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('quantileSorted (type 7)', () => {
  // h = (n - 1) p with n = 10: p50 -> h 4.5 -> 5 + 0.5 = 5.5; p90 -> h 8.1 -> 9.1; p95 -> 8.55 -> 9.55; p99 -> 8.91 -> 9.91.
  it('interpolates between order statistics', () => {
    expect(quantileSorted(oneToTen, 0.5)).toBe(5.5);
    expect(quantileSorted(oneToTen, 0.9)).toBeCloseTo(9.1, 12);
    expect(quantileSorted(oneToTen, 0.95)).toBeCloseTo(9.55, 12);
    expect(quantileSorted(oneToTen, 0.99)).toBeCloseTo(9.91, 12);
    expect(quantileSorted(oneToTen, 0.25)).toBe(3.25);
    expect(quantileSorted(oneToTen, 0)).toBe(1);
    expect(quantileSorted(oneToTen, 1)).toBe(10);
  });
  it('returns the single value of a one-element sample and the middle of an odd one', () => {
    expect(quantileSorted([42], 0.95)).toBe(42);
    expect(medianSorted([1, 3, 100])).toBe(3);
  });
  it('matches R type 7 off the grid, where other rules differ (type 2 gives 3, 8 and 15 here)', () => {
    // R: quantile(c(3, 6, 7, 8, 8, 9, 10, 13, 15, 16, 20), c(0.05, 0.45, 0.77), type = 7) -> 4.5 8.5 14.4 (h = 10 p).
    const x = [3, 6, 7, 8, 8, 9, 10, 13, 15, 16, 20];
    expect(quantileSorted(x, 0.05)).toBe(4.5);
    expect(quantileSorted(x, 0.45)).toBe(8.5);
    expect(quantileSorted(x, 0.77)).toBeCloseTo(14.4, 12);
  });
  it('rejects empty samples and p outside [0, 1] (NaN included)', () => {
    expect(() => quantileSorted([], 0.5)).toThrow(RangeError);
    expect(() => quantileSorted([1], 1.5)).toThrow(RangeError);
    expect(() => quantileSorted([1, 2], Number.NaN)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('summarises an unsorted sample exactly', () => {
    expect(summarize([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toEqual({
      n: 10,
      min: 1,
      p50: 5.5,
      p90: quantileSorted(oneToTen, 0.9),
      p95: quantileSorted(oneToTen, 0.95),
      p99: quantileSorted(oneToTen, 0.99),
      max: 10,
      mean: 5.5,
    });
  });
  it('is all null for n = 0', () => {
    expect(summarize([])).toEqual({
      n: 0,
      min: null,
      p50: null,
      p90: null,
      p95: null,
      p99: null,
      max: null,
      mean: null,
    });
  });
  it('rejects NaN rather than sorting it somewhere', () => {
    expect(() => summarize([1, Number.NaN])).toThrow(/index 1/);
  });
  it('keeps the mean exact where naive summation drifts (0.1 x 10: naive sum is 0.9999999999999999)', () => {
    expect(summarize(new Array<number>(10).fill(0.1)).mean).toBe(0.1);
  });
  it('sorts samples with and without negatives (and -0) exactly as the typed-array numeric sort does', () => {
    const reference = (xs: number[]): number[] => [...Float64Array.from(xs).sort()];
    const positive = [3.5, 0, 1e-300, 2 ** 53, 7, 0.1, 5e-324, 1.7976931348623157e308, 3.5];
    expect([...sortSample(positive)]).toEqual(reference(positive));
    expect([...sortSample(positive)]).toEqual([...positive].sort((a, b) => a - b));
    const mixed = [2, -1, 0, -0, -1e-300, 5];
    expect([...sortSample(mixed)]).toEqual(reference(mixed));
  });
  it('summarises 1e6 values in well under a second of CPU time', () => {
    const values = Array.from({ length: 1_000_000 }, (_, i) => (i * 7919) % 1_000_000);
    // CPU time, not wall time: on a loaded machine the wall clock also counts other processes' turns.
    const t0 = process.cpuUsage();
    const s = summarizeSorted(sortSample(values));
    const used = process.cpuUsage(t0);
    const ms = (used.user + used.system) / 1000;
    expect(s.n).toBe(1_000_000);
    expect(s.min).toBe(0);
    expect(s.max).toBe(999_999);
    expect(s.p50).toBe(499_999.5); // values are a permutation of 0..999999
    expect(ms).toBeLessThan(1000);
  });
});
