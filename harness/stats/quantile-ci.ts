// Distribution-free confidence interval for a population quantile from order statistics (binomial ranks). Pure.
// Hand-written: simple-statistics has no order-statistic interval (nor a log-space binomial CDF that holds for large n).
import { type SortedSample, sortSample } from './sorted.js';
import { quantileSorted } from './quantile.js';

/** A quantile estimate with its interval; a null bound means the sample is too small to bound that side. */
export interface QuantileEstimate {
  q: number;
  n: number;
  value: number | null;
  lo: number | null;
  hi: number | null;
}

/** Binomial(n, q) CDF at every k = 0..n, computed in log space so large n does not underflow. */
function binomialCdf(n: number, q: number): Float64Array {
  const cdf = new Float64Array(n + 1);
  const logRatio = Math.log(q) - Math.log1p(-q);
  let logPmf = n * Math.log1p(-q);
  let acc = 0;
  for (let k = 0; k <= n; k++) {
    acc += Math.exp(logPmf);
    cdf[k] = Math.min(1, acc);
    logPmf += Math.log((n - k) / (k + 1)) + logRatio;
  }
  return cdf;
}

/**
 * Ranks (1-based) [l, u] with P(x_(l) <= Q_q <= x_(u)) >= level: l is the largest rank with P(B < l) <= alpha/2,
 * u the smallest with P(B < u) >= 1 - alpha/2, B ~ Binomial(n, q); 0 or n + 1 when that side is unbounded.
 */
export function quantileRanks(n: number, q: number, level = 0.95): [number, number] {
  if (!(q > 0 && q < 1)) throw new RangeError(`quantileRanks: q must be in (0, 1), got ${q}`);
  const alpha = 1 - level;
  const cdf = binomialCdf(n, q);
  let l = 0;
  for (let r = 1; r <= n; r++) if ((cdf[r - 1] as number) <= alpha / 2) l = r;
  let u = n + 1;
  for (let r = n; r >= 1; r--) if ((cdf[r - 1] as number) >= 1 - alpha / 2) u = r;
  return [l, u];
}

/** Type-7 point estimate of quantile q with its order-statistic interval at `level`. */
export function quantileWithCi(values: ArrayLike<number>, q: number, level = 0.95): QuantileEstimate {
  return quantileWithCiSorted(sortSample(values), q, level);
}

/** quantileWithCi of a sample already sorted ascending (sortSample). */
export function quantileWithCiSorted(sorted: SortedSample, q: number, level = 0.95): QuantileEstimate {
  const n = sorted.length;
  if (n === 0) return { q, n, value: null, lo: null, hi: null };
  const [l, u] = quantileRanks(n, q, level);
  return {
    q,
    n,
    value: quantileSorted(sorted, q),
    lo: l >= 1 ? (sorted[l - 1] as number) : null,
    hi: u <= n ? (sorted[u - 1] as number) : null,
  };
}
