// Summary of one sample: n, min, type-7 quantiles p50/p90/p95/p99, max, mean; every field null when n = 0.
import { mean as ssMean } from 'simple-statistics';
import { quantileSorted } from './quantile.js';
import { sortSample, type SortedSample } from './sorted.js';

/** Distribution summary (analysis/summary.ts names it Distribution). */
export interface DistributionSummary {
  n: number;
  min: number | null;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** Arithmetic mean by simple-statistics (Kahan–Babuška/Neumaier compensated sum / n); null for an empty sample. */
export function mean(values: ArrayLike<number>): number | null {
  return values.length === 0 ? null : ssMean(values as readonly number[]); // reads length and indices only
}

/** Summarise an ascending sample without copying it. */
export function summarizeSorted(sorted: SortedSample): DistributionSummary {
  const n = sorted.length;
  if (n === 0) return { n: 0, min: null, p50: null, p90: null, p95: null, p99: null, max: null, mean: null };
  return {
    n,
    min: sorted[0] as number,
    p50: quantileSorted(sorted, 0.5),
    p90: quantileSorted(sorted, 0.9),
    p95: quantileSorted(sorted, 0.95),
    p99: quantileSorted(sorted, 0.99),
    max: sorted[n - 1] as number,
    mean: mean(sorted),
  };
}

/** Summarise a sample in any order (sorts a copy once). */
export function summarize(values: ArrayLike<number>): DistributionSummary {
  return summarizeSorted(sortSample(values));
}
