// The 95% interval shown beside a distribution statistic of a gate (order statistics for quantiles, bootstrap for the mean),
// and the fewest samples a quantile gate may judge.
import { bootstrapCiSorted } from '../stats/bootstrap.js';
import { mean } from '../stats/distribution.js';
import { quantileRanks, quantileWithCiSorted } from '../stats/quantile-ci.js';
import { sortSample } from '../stats/sorted.js';
import { statName } from './threshold.js';
import type { Statistic } from './types.js';

/** The statistics a threshold may name on a distribution metric: the figures a summary's Distribution keeps. */
export const DIST_STATS = ['p50', 'p90', 'p95', 'p99', 'min', 'max', 'mean'] as const;

/** One of DIST_STATS. */
export type DistStat = (typeof DIST_STATS)[number];

/** A statistic of a distribution metric. */
export type DistStatistic = Extract<Statistic, { kind: 'quantile' | 'min' | 'max' | 'mean' }>;

/** The Distribution field a statistic reads (p95 for { kind: 'quantile', q: 0.95 }); null when a summary keeps no such figure. */
export function distKey(stat: Statistic): DistStat | null {
  if (stat.kind !== 'quantile' && stat.kind !== 'min' && stat.kind !== 'max' && stat.kind !== 'mean') return null;
  const name = statName(stat);
  return DIST_STATS.find((k) => k === name) ?? null;
}

/** Whether a distribution metric has the statistic: one of the figures its summary keeps (DIST_STATS). */
export function isDistStatistic(stat: Statistic): stat is DistStatistic {
  return distKey(stat) !== null;
}

/** A statistic's two-sided 95% interval, its one-sided 95% bounds, and a note. */
export interface DistributionInterval {
  /** The two-sided 95% interval (what the report's quantile table shows), when both ends are bounded. */
  interval: [number, number] | null;
  /**
   * One-sided 95% bounds [lower, upper], each holding at 95% on its own (null: too few samples or unknown), that a
   * point verdict is checked against; null when the statistic has none (min, max).
   */
  ends: [number | null, number | null] | null;
  note: string;
}

/**
 * The 95% interval shown beside a distribution statistic. A quantile gets the distribution-free order-statistic
 * interval, the same one the report's quantile table gives for it (a bootstrap interval here used to disagree with
 * that table, and cannot reach past the sample's extremes); a side too few samples can bound leaves no interval and
 * says so (from n alone when the raw samples were not kept). The mean keeps a bootstrap interval; a minimum or maximum has none.
 */
export function distributionInterval(
  stat: DistStatistic,
  samples: ArrayLike<number> | undefined,
  seed: number,
  n = samples?.length ?? 0,
): DistributionInterval {
  if (stat.kind === 'min' || stat.kind === 'max')
    return { interval: null, ends: null, note: `no interval for a ${stat.kind === 'min' ? 'minimum' : 'maximum'}` };
  const unknown = { interval: null, ends: [null, null] as [null, null] };
  const q = stat.kind === 'quantile' ? stat.q : null;
  const key = statName(stat);
  if (samples === undefined || samples.length === 0) {
    if (n === 0) return { ...unknown, note: 'nothing measured: no interval' };
    if (q !== null && n < minNForQuantileCi(q))
      return { ...unknown, note: cannotBound(key, q, n, quantileRanks(n, q)) };
    return { ...unknown, note: `raw samples not kept: the 95% interval of ${key} over ${n} samples is unknown` };
  }
  const sorted = sortSample(samples);
  if (q === null) {
    const ci = bootstrapCiSorted(sorted, (s) => mean(s) ?? Number.NaN, { seed });
    const one = bootstrapCiSorted(sorted, (s) => mean(s) ?? Number.NaN, { seed, level: 0.9 });
    return ci === null || one === null
      ? { ...unknown, note: '' }
      : { interval: [ci.lo, ci.hi], ends: [one.lo, one.hi], note: 'bootstrap 95% interval' };
  }
  const e = quantileWithCiSorted(sorted, q);
  const one = quantileWithCiSorted(sorted, q, 0.9); // each end of a two-sided 90% interval is a one-sided 95% bound
  const ends: [number | null, number | null] = [one.lo, one.hi];
  if (e.lo !== null && e.hi !== null) return { interval: [e.lo, e.hi], ends, note: '' };
  const [l, u] = quantileRanks(sorted.length, q);
  const oneSidedHolds = (l >= 1 || one.lo !== null) && (u <= sorted.length || one.hi !== null);
  const note = oneSidedHolds
    ? `no two-sided 95% interval of ${key} from ${sorted.length} samples (it needs n >= ${minNForQuantileCi(q)}); the one-sided 95% bounds are judged`
    : cannotBound(key, q, sorted.length, [l, u]);
  return { interval: null, ends, note };
}

function cannotBound(key: string, q: number, n: number, [l, u]: [number, number]): string {
  const side = l < 1 && u > n ? 'either side' : l < 1 ? 'below' : 'above';
  return `${n} sample${n === 1 ? '' : 's'} cannot bound ${key} ${side} at 95% (a two-sided interval needs n >= ${minNForQuantileCi(q)})`;
}

/** Smallest n whose order-statistic 95% interval of quantile q is bounded on both sides. */
function minNForQuantileCi(q: number): number {
  for (let n = 1; ; n++) {
    const [l, u] = quantileRanks(n, q);
    if (l >= 1 && u <= n) return n;
  }
}

/**
 * Smallest n whose order statistics give a one-sided 95% bound on quantile q: from above (the largest sample bounds it
 * once 1 - q^n >= 95%; p95 needs 59), or from below (1 - (1 - q)^n >= 95%). The rule for judging a quantile gate.
 */
export function minNForQuantileBound(q: number, side: 'upper' | 'lower', level = 0.95): number {
  const p = side === 'upper' ? q : 1 - q;
  return Math.ceil(Math.log(1 - level) / Math.log(p) - 1e-9);
}
