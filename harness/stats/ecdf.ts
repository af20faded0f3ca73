// Empirical CDF chart data: one point per distinct value, F(x) = (number of values <= x) / n, optionally thinned.
// Hand-written: simple-statistics has no ECDF.
import type { SortedSample } from './sorted.js';

/** One step of the ECDF: the fraction p of the sample is <= x. */
export interface EcdfPoint {
  x: number;
  p: number;
}

/** ECDF points of an ascending sample; with more distinct values than maxPoints, keeps evenly spaced ones plus the last. */
export function ecdfPoints(sorted: SortedSample, maxPoints = Number.POSITIVE_INFINITY): EcdfPoint[] {
  const n = sorted.length;
  if (!(maxPoints >= 2)) throw new RangeError(`ecdfPoints: maxPoints must be >= 2, got ${maxPoints}`);
  const points: EcdfPoint[] = [];
  for (let i = 0; i < n; i++) {
    const x = sorted[i] as number;
    if (i + 1 < n && sorted[i + 1] === x) continue; // ties: keep the last index of each value
    points.push({ x, p: (i + 1) / n });
  }
  if (points.length <= maxPoints) return points;
  const thinned: EcdfPoint[] = [];
  const step = (points.length - 1) / (maxPoints - 1);
  for (let k = 0; k < maxPoints; k++) thinned.push(points[Math.round(k * step)] as EcdfPoint);
  return thinned;
}
