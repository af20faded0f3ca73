import { describe, expect, test } from 'vitest';
import { quantileRanks, quantileWithCi } from '../../harness/stats/quantile-ci.js';

// Expected ranks computed exactly with Python's math.comb (binomial sums), alpha = 0.05 split evenly.
describe('quantileRanks', () => {
  test('exact order-statistic ranks', () => {
    expect(quantileRanks(30, 0.5)).toEqual([10, 21]);
    expect(quantileRanks(10, 0.5)).toEqual([2, 9]);
    expect(quantileRanks(100, 0.95)).toEqual([90, 100]);
    expect(quantileRanks(1000, 0.99)).toEqual([983, 997]);
  });
  test('the upper side is unbounded when n is too small for the tail', () => {
    expect(quantileRanks(30, 0.95)).toEqual([26, 31]);
  });
  test('large n does not underflow', () => {
    const [l, u] = quantileRanks(10_000, 0.5);
    expect(l).toBeGreaterThan(4900);
    expect(u).toBeLessThan(5100);
  });
});

describe('quantileWithCi', () => {
  test('1..30: median 15.5 with interval [x(10), x(21)]', () => {
    const values = Array.from({ length: 30 }, (_v, i) => 30 - i);
    expect(quantileWithCi(values, 0.5)).toEqual({ q: 0.5, n: 30, value: 15.5, lo: 10, hi: 21 });
    expect(quantileWithCi(values, 0.95)).toMatchObject({ lo: 26, hi: null });
  });
  test('empty sample', () => {
    expect(quantileWithCi([], 0.5)).toEqual({ q: 0.5, n: 0, value: null, lo: null, hi: null });
  });
});
