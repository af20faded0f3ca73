import { describe, expect, test } from 'vitest';
import { ecdfData, histogramData } from '../../../harness/report/charts/chart-data.js';

describe('histogramData', () => {
  test('equal-width bins from min to max holding every value', () => {
    const values = [100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200];
    const bins = histogramData(values);
    expect(bins.length).toBe(5); // Sturges: ceil(log2 11) + 1
    expect(bins[0]).toEqual({ x0: 100, x1: 120, count: 2 });
    expect(bins.at(-1)).toEqual({ x0: 180, x1: 200, count: 3 });
    expect(bins.reduce((a, b) => a + b.count, 0)).toBe(11);
  });
  test('a single repeated value gets one 1-wide bin', () => {
    expect(histogramData([5, 5, 5])).toEqual([{ x0: 4.5, x1: 5.5, count: 3 }]);
  });
  test('empty', () => {
    expect(histogramData([])).toEqual([]);
  });
});

describe('ecdfData', () => {
  test('starts on the axis and steps at each distinct value', () => {
    expect(ecdfData([3, 1, 2, 2])).toEqual([
      { x: 1, p: 0 },
      { x: 1, p: 0.25 },
      { x: 2, p: 0.75 },
      { x: 3, p: 1 },
    ]);
  });
  test('thins 10,000 distinct values to at most 1001 points ending at p = 1', () => {
    const points = ecdfData(Array.from({ length: 10_000 }, (_v, i) => i));
    expect(points.length).toBeLessThanOrEqual(1001);
    expect(points.at(-1)).toEqual({ x: 9999, p: 1 });
  });
});
