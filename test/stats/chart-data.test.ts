// ECDF points, the Freedman–Diaconis bin count and equal-width bins, against hand computation.
import { describe, expect, it } from 'vitest';
import { ecdfPoints } from '../../harness/stats/ecdf.js';
import { binCount, equalWidthBins } from '../../harness/stats/histogram.js';

describe('ecdfPoints', () => {
  it('makes one step per distinct value', () => {
    expect(ecdfPoints([1, 2, 2, 3])).toEqual([
      { x: 1, p: 0.25 },
      { x: 2, p: 0.75 },
      { x: 3, p: 1 },
    ]);
    expect(ecdfPoints([])).toEqual([]);
  });
  it('thins to maxPoints keeping the first and last step', () => {
    const points = ecdfPoints(
      Array.from({ length: 1001 }, (_, i) => i),
      11,
    );
    expect(points).toHaveLength(11);
    expect(points[0]).toEqual({ x: 0, p: 1 / 1001 });
    expect(points[5]?.x).toBe(500);
    expect(points[10]).toEqual({ x: 1000, p: 1 });
  });
});

describe('binCount', () => {
  // 1..10: IQR = 7.75 - 3.25 = 4.5, FD width = 2 * 4.5 * 10^(-1/3) = 4.177, range 9 -> ceil(2.154) = 3 bins.
  it('uses Freedman–Diaconis, falls back to Sturges when IQR is 0 (1,1,1,1,1,1,1,9: ceil(log2 8) + 1 = 4), caps', () => {
    expect(binCount([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBe(3);
    expect(binCount([1, 1, 1, 1, 1, 1, 1, 9])).toBe(4);
    expect(
      binCount(
        Array.from({ length: 10_000 }, (_, i) => i),
        20,
      ),
    ).toBe(20);
    expect(binCount([5, 5, 5])).toBe(1);
    expect(binCount([])).toBe(0);
  });
});

describe('equalWidthBins', () => {
  it('cuts 1..10 into 3 bins of width 3, the last closed on the max', () => {
    expect(equalWidthBins([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3)).toEqual([
      { x0: 1, x1: 4, count: 3 },
      { x0: 4, x1: 7, count: 3 },
      { x0: 7, x1: 10, count: 4 },
    ]);
  });
  it('counts a value on an inner edge in the bin to its right, and leaves empty bins at 0', () => {
    // width 10 / 4 = 2.5: 0, 1, 2 | 2.5, 3 | (none) | 10
    expect(equalWidthBins([0, 1, 2, 2.5, 3, 10], 4)).toEqual([
      { x0: 0, x1: 2.5, count: 3 },
      { x0: 2.5, x1: 5, count: 2 },
      { x0: 5, x1: 7.5, count: 0 },
      { x0: 7.5, x1: 10, count: 1 },
    ]);
  });
  it('keeps every value of a large sample', () => {
    const bins = equalWidthBins(
      Array.from({ length: 10_000 }, (_, i) => i),
      20,
    );
    expect(bins).toHaveLength(20);
    expect(bins[1]).toEqual({ x0: 499.95, x1: 999.9, count: 500 }); // width 9999 / 20; 500..999 land in bin 1
    expect(bins.reduce((s, b) => s + b.count, 0)).toBe(10_000);
  });
  it('puts a constant sample in the first of its zero-width bins; empty gives none; bins must be a positive integer', () => {
    expect(equalWidthBins([5, 5, 5], 1)).toEqual([{ x0: 5, x1: 5, count: 3 }]);
    expect(equalWidthBins([5, 5], 2)).toEqual([
      { x0: 5, x1: 5, count: 2 },
      { x0: 5, x1: 5, count: 0 },
    ]);
    expect(equalWidthBins([], 3)).toEqual([]);
    expect(() => equalWidthBins([1, 2], 0)).toThrow(RangeError);
    expect(() => equalWidthBins([1, 2], 2.5)).toThrow(RangeError);
  });
});
