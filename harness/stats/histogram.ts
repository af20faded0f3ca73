// Histograms: the Freedman–Diaconis bin count (Sturges when IQR = 0), and the one equal-width binning the charts use.
import { equalIntervalBreaks } from 'simple-statistics';
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

/**
 * `bins` equal-width bins from min to max of an ascending sample, counting every value; [] for an empty sample. Edges
 * are simple-statistics' equalIntervalBreaks (min + b (max - min) / bins, the last exactly max); x goes to bin
 * floor((x - min) / width), so an inner edge counts on its right, and max to the last bin. A constant sample puts every
 * value in bin 0 (zero width).
 */
export function equalWidthBins(sorted: SortedSample, bins: number): HistogramBin[] {
  if (!Number.isInteger(bins) || bins < 1)
    throw new RangeError(`equalWidthBins: bins must be an integer >= 1, got ${bins}`);
  const n = sorted.length;
  if (n === 0) return [];
  const min = sorted[0] as number;
  const max = sorted[n - 1] as number;
  const edges = equalIntervalBreaks([min, max], bins);
  const result: HistogramBin[] = [];
  for (let b = 0; b < bins; b++) result.push({ x0: edges[b] as number, x1: edges[b + 1] as number, count: 0 });
  const width = (max - min) / bins;
  for (let i = 0; i < n; i++) {
    const b = width === 0 ? 0 : Math.min(bins - 1, Math.floor(((sorted[i] as number) - min) / width));
    result[b]!.count++;
  }
  return result;
}
