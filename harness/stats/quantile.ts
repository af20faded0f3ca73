// Sample quantiles by Hyndman & Fan type 7 (R's default, numpy's "linear"): linear interpolation between order statistics.
import type { SortedSample } from './sorted.js';

/**
 * Type-7 quantile of an ascending sample: h = (n - 1) p, Q = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 * Throws on an empty sample or p outside [0, 1].
 */
export function quantileSorted(sorted: SortedSample, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantileSorted: empty sample');
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantileSorted: p must be in [0, 1], got ${p}`);
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const x0 = sorted[lo] as number;
  if (lo + 1 >= n) return x0;
  const x1 = sorted[lo + 1] as number;
  const frac = h - lo;
  return frac === 0 ? x0 : x0 + frac * (x1 - x0);
}

/** Median (type 7, i.e. the mean of the two middle values for even n) of an ascending sample. */
export function medianSorted(sorted: SortedSample): number {
  return quantileSorted(sorted, 0.5);
}
