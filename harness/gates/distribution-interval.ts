// The 95% interval shown beside a distribution statistic of a gate (order statistics for quantiles, bootstrap for the mean).
import { bootstrapCiSorted } from '../stats/bootstrap.js';
import { mean } from '../stats/distribution.js';
import { quantileRanks, quantileWithCiSorted } from '../stats/quantile-ci.js';
import { sortSample } from '../stats/sorted.js';

/** The statistics a threshold may name on a distribution metric. */
export const DIST_STATS = ['p50', 'p90', 'p95', 'p99', 'min', 'max', 'mean'] as const;

/** One of DIST_STATS. */
export type DistStat = (typeof DIST_STATS)[number];

/**
 * The 95% interval shown beside a distribution statistic. A quantile gets the distribution-free order-statistic
 * interval, the same one the report's quantile table gives for it (a bootstrap interval here used to disagree with
 * that table, and cannot reach past the sample's extremes); a side too few samples can bound leaves no interval and
 * says so. The mean keeps a bootstrap interval; a minimum or maximum has none.
 */
export function distributionInterval(
  key: DistStat,
  samples: ArrayLike<number> | undefined,
  seed: number,
): { interval: [number, number] | null; note: string } {
  if (samples === undefined || samples.length === 0) return { interval: null, note: 'no raw samples: no interval' };
  if (key === 'min' || key === 'max')
    return { interval: null, note: `no interval for a ${key === 'min' ? 'minimum' : 'maximum'}` };
  const sorted = sortSample(samples);
  if (key === 'mean') {
    const ci = bootstrapCiSorted(sorted, (s) => mean(s) ?? Number.NaN, { seed });
    return ci === null ? { interval: null, note: '' } : { interval: [ci.lo, ci.hi], note: 'bootstrap 95% interval' };
  }
  const q = Number(key.slice(1)) / 100;
  const e = quantileWithCiSorted(sorted, q);
  if (e.lo !== null && e.hi !== null) return { interval: [e.lo, e.hi], note: '' };
  const side = e.lo === null && e.hi === null ? 'either side' : e.lo === null ? 'below' : 'above';
  return {
    interval: null,
    note: `${sorted.length} samples cannot bound ${key} ${side} at 95% (needs n >= ${minNForQuantileCi(q)})`,
  };
}

/** Smallest n whose order-statistic 95% interval of quantile q is bounded on both sides. */
function minNForQuantileCi(q: number): number {
  for (let n = 1; ; n++) {
    const [l, u] = quantileRanks(n, q);
    if (l >= 1 && u <= n) return n;
  }
}
