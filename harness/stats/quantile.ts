// Sample quantiles by Hyndman & Fan type 7 (R's default, numpy's "linear"), from simple-statistics, with range checks.
import { quantileSorted as ssQuantileSorted } from 'simple-statistics';
import type { SortedSample } from './sorted.js';

/**
 * Type-7 quantile of an ascending sample: h = (n - 1) p, Q = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 * simple-statistics 7.12.1 (pinned) computes exactly this (test/stats/quantile.test.ts holds R's values); the checks
 * here add RangeError on an empty sample or p outside [0, 1] (it returns NaN for p = NaN). It only reads length and
 * indices, so a typed array is passed as is.
 */
export function quantileSorted(sorted: SortedSample, p: number): number {
  if (sorted.length === 0) throw new RangeError('quantileSorted: empty sample');
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileSorted: p must be in [0, 1], got ${p}`);
  return ssQuantileSorted(sorted as readonly number[], p);
}

/** Median (type 7, i.e. the mean of the two middle values for even n) of an ascending sample. */
export function medianSorted(sorted: SortedSample): number {
  return quantileSorted(sorted, 0.5);
}
