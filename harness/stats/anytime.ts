// Anytime-valid tests of a success rate against a bar: one-sided beta-binomial mixture e-processes (Robbins 1970).
//
// Trials X_1, X_2, ... are Bernoulli(p); after S successes and F failures, against the bar c (0 < c < 1):
//
//   E_above(c) = sum_i w_i (p_i / c)^S ((1 - p_i) / (1 - c))^F      with every p_i in (c, 1), sum_i w_i = 1
//   E_below(c) = the same with every p_i in (0, c)
//
// Each term is a likelihood ratio L(p_i) / L(c). Under any true p <= c the one-trial factor of a term with p_i > c has
// expectation p p_i / c + (1 - p)(1 - p_i) / (1 - c) <= 1 (it grows with p and equals 1 at p = c), so E_above is a
// nonnegative supermartingale under the whole composite null "rate <= c"; symmetrically E_below under "rate >= c".
// Ville's inequality gives P(sup_t E_t >= 1/alpha) <= alpha: declaring "rate > c" the first time E_above >= 1/alpha
// is wrong with probability <= alpha however often one looks and whenever one stops (continuous monitoring and
// optional stopping). Howard, Ramdas, McAuliffe & Sekhon (2021), "Time-uniform, nonparametric, nonasymptotic
// confidence sequences", Ann. Statist. 49(2), section on the beta-binomial mixture; Robbins (1970), "Statistical
// methods related to the law of the iterated logarithm", Ann. Math. Statist. 41(5).
//
// The mixing weights are a prior truncated to the gate's side, discretised exactly (each w_i is the prior's mass of a
// cell, so the sum is a proper mixture and its validity does not depend on quadrature accuracy):
//   above: with u = (1 - p) / (1 - c) in (0, 1), u ~ Beta(b, 1) i.e. P(u <= x) = x^b, b = ABOVE_SHAPE = 0.2 (a
//          Beta(1, 0.2) prior on p truncated to (c, 1): most mass near p = 1, where a healthy system is, so a clean run
//          certifies "rate > 95%" after 65 trials; see test/stats/anytime.test.ts for the hand-checked figures);
//   below: p uniform on (0, c) (a failing system is caught whatever its rate: two failures in a row decide "< 95%").
// Both depend on (S, F) only, so shards' counts add (docs/anytime.md says when that is valid).

/** Shape b of the Beta(1, b) prior on the pass side: smaller b puts more mass near a perfect rate. */
export const ABOVE_SHAPE = 0.2;
const CELLS = 240;

/** What the data certify about "rate vs bar" at level alpha: above it, below it, or not yet either. */
export type RateDecision = 'above' | 'below' | 'undecided';

interface Mixture {
  points: number[];
  logWeights: number[];
}

const cache = new Map<string, Mixture>();

/** The discretised prior on (bar, 1) (side above) or (0, bar) (side below). */
function mixture(bar: number, side: 'above' | 'below'): Mixture {
  const key = `${side}:${bar}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const points: number[] = [];
  const logWeights: number[] = [];
  if (side === 'above') {
    // u = (1 - p) / (1 - bar) on a geometric grid 1 = u_0 > u_1 > ... > u_K = 1e-9, plus the cell (0, u_K].
    const ratio = Math.pow(1e-9, 1 / CELLS);
    for (let k = 0; k <= CELLS; k++) {
      const hi = Math.pow(ratio, k);
      const lo = k === CELLS ? 0 : hi * ratio;
      const mass = Math.pow(hi, ABOVE_SHAPE) - Math.pow(lo, ABOVE_SHAPE);
      const u = k === CELLS ? hi / 2 : Math.sqrt(hi * lo);
      points.push(1 - u * (1 - bar));
      logWeights.push(Math.log(mass));
    }
  } else {
    for (let k = 0; k < CELLS; k++) {
      points.push((bar * (k + 0.5)) / CELLS);
      logWeights.push(-Math.log(CELLS));
    }
  }
  const m = { points, logWeights };
  if (cache.size > 4096) cache.clear();
  cache.set(key, m);
  return m;
}

function check(successes: number, failures: number, bar: number): void {
  if (!Number.isInteger(successes) || !Number.isInteger(failures) || successes < 0 || failures < 0) {
    throw new RangeError(`anytime: need integer counts >= 0, got ${successes} successes, ${failures} failures`);
  }
  if (!(bar > 0 && bar < 1)) throw new RangeError(`anytime: the bar must be in (0, 1), got ${bar}`);
}

/** log of the mixture e-value on one side (log-sum-exp, so thousands of trials do not overflow). */
function logE(successes: number, failures: number, bar: number, side: 'above' | 'below'): number {
  check(successes, failures, bar);
  const { points, logWeights } = mixture(bar, side);
  const ls = Math.log(bar);
  const lf = Math.log(1 - bar);
  let max = Number.NEGATIVE_INFINITY;
  const terms = points.map((p, i) => {
    const t = (logWeights[i] ?? 0) + successes * (Math.log(p) - ls) + failures * (Math.log1p(-p) - lf);
    if (t > max) max = t;
    return t;
  });
  let sum = 0;
  for (const t of terms) sum += Math.exp(t - max);
  return max + Math.log(sum);
}

/** The e-value against "rate <= bar" (evidence the rate is above the bar). */
export function eAbove(successes: number, failures: number, bar: number): number {
  return Math.exp(logE(successes, failures, bar, 'above'));
}

/** The e-value against "rate >= bar" (evidence the rate is below the bar). */
export function eBelow(successes: number, failures: number, bar: number): number {
  return Math.exp(logE(successes, failures, bar, 'below'));
}

/** What (successes, failures) certify about the bar at level alpha: each side is its own level-alpha test. */
export function decideRate(successes: number, failures: number, bar: number, alpha: number): RateDecision {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`anytime: alpha must be in (0, 1), got ${alpha}`);
  const threshold = Math.log(1 / alpha);
  if (logE(successes, failures, bar, 'above') >= threshold) return 'above';
  if (logE(successes, failures, bar, 'below') >= threshold) return 'below';
  return 'undecided';
}

/**
 * The anytime-valid interval: [lo, hi] with lo the highest bar the data certify the rate above and hi the lowest bar
 * they certify it below (each one-sided at alpha; lo = 0 / hi = 1 when none), found by bisection to 1e-6.
 */
export function anytimeInterval(successes: number, failures: number, alpha: number): [number, number] {
  const threshold = Math.log(1 / alpha);
  const certified = (bar: number, side: 'above' | 'below'): boolean =>
    logE(successes, failures, bar, side) >= threshold;
  const edge = (side: 'above' | 'below'): number => {
    // above: certified for small bars, not for large ones; below: the reverse
    let [inside, outside] = side === 'above' ? [1e-9, 1 - 1e-9] : [1 - 1e-9, 1e-9];
    if (!certified(inside, side)) return side === 'above' ? 0 : 1;
    if (certified(outside, side)) return side === 'above' ? 1 : 0;
    while (Math.abs(outside - inside) > 1e-6) {
      const mid = (inside + outside) / 2;
      if (certified(mid, side)) inside = mid;
      else outside = mid;
    }
    return inside;
  };
  return [edge('above'), edge('below')];
}

/** The fewest trials, with exactly `failures` of them failures, that certify "rate > bar" at level alpha. */
export function trialsToCertifyAbove(bar: number, failures: number, alpha: number, limit = 100_000): number | null {
  for (let n = failures; n <= limit; n++) if (decideRate(n - failures, failures, bar, alpha) === 'above') return n;
  return null;
}
