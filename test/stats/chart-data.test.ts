// ECDF points and Freedman–Diaconis histogram bins, against hand computation.
import { describe, expect, it } from 'vitest';
import { ecdfPoints } from '../../harness/stats/ecdf.js';
import { binCount, histogram } from '../../harness/stats/histogram.js';

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

describe('histogram', () => {
  // 1..10: IQR = 7.75 - 3.25 = 4.5, FD width = 2 * 4.5 * 10^(-1/3) = 4.177, range 9 -> ceil(2.154) = 3 bins of width 3.
  it('uses Freedman–Diaconis bins', () => {
    const oneToTen = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(binCount(oneToTen)).toBe(3);
    expect(histogram(oneToTen)).toEqual([
      { x0: 1, x1: 4, count: 3 },
      { x0: 4, x1: 7, count: 3 },
      { x0: 7, x1: 10, count: 4 },
    ]);
  });
  it('caps the bin count and keeps every value', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => i);
    const bins = histogram(values, 20);
    expect(bins).toHaveLength(20);
    expect(bins.reduce((s, b) => s + b.count, 0)).toBe(10_000);
  });
  it('falls back to Sturges when IQR is 0 (1,1,1,1,1,1,1,9: ceil(log2 8) + 1 = 4 bins) and to one bin for a constant sample', () => {
    expect(binCount([1, 1, 1, 1, 1, 1, 1, 9])).toBe(4);
    expect(histogram([5, 5, 5])).toEqual([{ x0: 5, x1: 5, count: 3 }]);
    expect(histogram([])).toEqual([]);
  });
});
