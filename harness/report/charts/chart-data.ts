// Chart rows for one sample, built on harness/stats (ecdf, histogram bins): ECDF thinned to 1000 points, histogram bins.
import { ecdfPoints, type EcdfPoint } from '../../stats/ecdf.js';
import { binCount, equalWidthBins, type HistogramBin } from '../../stats/histogram.js';
import { sortSample } from '../../stats/sorted.js';

const MAX_ECDF_POINTS = 1000;
const MAX_BINS = 40;

/** ECDF steps with a leading (min, 0) point so the step line starts on the x axis; [] for an empty sample. */
export function ecdfData(values: ArrayLike<number>): EcdfPoint[] {
  const points = ecdfPoints(sortSample(values), MAX_ECDF_POINTS);
  const first = points[0];
  return first ? [{ x: first.x, p: 0 }, ...points] : [];
}

/**
 * Equal-width bins from min to max; count = max(Freedman–Diaconis from harness/stats, Sturges), at most 40, so a small
 * sample still shows its shape. A sample of one repeated value gets one 1-wide bin centred on it.
 */
export function histogramData(values: ArrayLike<number>): HistogramBin[] {
  const sorted = sortSample(values);
  const n = sorted.length;
  if (n === 0) return [];
  const min = sorted[0] as number;
  const max = sorted[n - 1] as number;
  if (max === min) return [{ x0: min - 0.5, x1: max + 0.5, count: n }];
  const bins = Math.min(MAX_BINS, Math.max(binCount(sorted, MAX_BINS), Math.ceil(Math.log2(n)) + 1));
  return equalWidthBins(sorted, bins);
}
