// Histogram chart data with the Freedman–Diaconis bin rule (width 2 IQR n^(-1/3)), bin count capped; Sturges when IQR = 0.
import { quantileSorted } from './quantile.js';
import type { SortedSample } from './sorted.js';

/** One bin [x0, x1): left-closed; the last bin also holds x1. */
export interface HistogramBin {
  x0: number;
  x1: number;
  count: number;
}

/**
 * Number of bins for an ascending sample: ceil(range / (2 IQR n^(-1/3))) (Freedman & Diaconis 1981), or
 * ceil(log2 n) + 1 (Sturges) when the IQR is 0; clamped to [1, maxBins]; 1 when all values are equal.
 */
export function binCount(sorted: SortedSample, maxBins = 50): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const range = (sorted[n - 1] as number) - (sorted[0] as number);
  if (range === 0) return 1;
  const iqr = quantileSorted(sorted, 0.75) - quantileSorted(sorted, 0.25);
  const raw = iqr > 0 ? Math.ceil(range / (2 * iqr * Math.cbrt(1 / n))) : Math.ceil(Math.log2(n)) + 1;
  return Math.min(Math.max(raw, 1), maxBins);
}

/** Equal-width bins from min to max of an ascending sample; [] for an empty sample. */
export function histogram(sorted: SortedSample, maxBins = 50): HistogramBin[] {
  const n = sorted.length;
  if (n === 0) return [];
  const min = sorted[0] as number;
  const max = sorted[n - 1] as number;
  const bins = binCount(sorted, maxBins);
  const width = (max - min) / bins;
  const result: HistogramBin[] = [];
  for (let b = 0; b < bins; b++)
    result.push({ x0: min + b * width, x1: b === bins - 1 ? max : min + (b + 1) * width, count: 0 });
  for (let i = 0; i < n; i++) {
    const x = sorted[i] as number;
    const b = width === 0 ? 0 : Math.min(bins - 1, Math.floor((x - min) / width));
    result[b]!.count++;
  }
  return result;
}
