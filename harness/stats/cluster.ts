// A rate whose trials come in clusters (the cycles of one session share its host, its store and its plan, so they are
// not independent: issue 36): the Wilson interval at an effective sample size (Korn & Graubard 1998, "Confidence
// intervals for proportions with small expected number of positive counts estimated from survey data", Survey
// Methodology 24(2)): n / design effect, the design effect from the between-cluster variance of the ratio estimator
// (Kish 1965) and never below 1, then scaled by (z / t_{k-1})^2 for k clusters, so few sessions widen the interval
// even when they agree. Hand-written: simple-statistics has no t quantile and no design effect.
import { gammaln } from 'simple-statistics';
import { zForLevel } from './normal.js';
import { wilsonAt, type Interval } from './wilson.js';

/** One cluster's trials of the rate. */
export interface ClusterCount {
  successes: number;
  trials: number;
}

/** The interval with what it accounted for. */
export interface ClusteredRate {
  /** Clusters with at least one trial. */
  clusters: number;
  /** Design effect (>= 1): the rate's variance over the variance the same n of independent trials would have. */
  designEffect: number;
  /** The n the interval was computed at: trials / designEffect, times (z / t_{clusters-1})^2. */
  effectiveN: number;
  interval: Interval | null;
}

/** Variance of the pooled rate between clusters over the binomial variance; 1 when it cannot exceed it measurably. */
export function designEffect(counts: readonly ClusterCount[]): number {
  const k = counts.length;
  const n = counts.reduce((s, c) => s + c.trials, 0);
  if (k < 2 || n === 0) return 1;
  const p = counts.reduce((s, c) => s + c.successes, 0) / n;
  if (p === 0 || p === 1) return 1; // every cluster at the same edge: no spread between them to measure
  const between = (k / (k - 1)) * counts.reduce((s, c) => s + (c.successes - p * c.trials) ** 2, 0);
  const clustered = between / (n * n);
  return Math.max(1, clustered / ((p * (1 - p)) / n));
}

/** Student's t density with `df` degrees of freedom. */
function tDensity(x: number, df: number): number {
  const logNorm = gammaln((df + 1) / 2) - gammaln(df / 2) - 0.5 * Math.log(df * Math.PI);
  return Math.exp(logNorm - ((df + 1) / 2) * Math.log(1 + (x * x) / df));
}

const tCache = new Map<string, number>();

/** The two-sided `level` quantile of Student's t (P(|T| <= t) = level), by Simpson's rule and bisection. */
export function tForLevel(level: number, df: number): number {
  if (!(df >= 1)) throw new RangeError(`tForLevel: need df >= 1, got ${df}`);
  const key = `${level}:${df}`;
  const known = tCache.get(key);
  if (known !== undefined) return known;
  const mass = (x: number): number => {
    const steps = 2000;
    const h = x / steps;
    let s = tDensity(0, df) + tDensity(x, df);
    for (let i = 1; i < steps; i++) s += (i % 2 === 1 ? 4 : 2) * tDensity(i * h, df);
    return (s * h) / 3;
  };
  let [lo, hi] = [0, 1];
  while (mass(hi) < level / 2) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (mass(mid) < level / 2) lo = mid;
    else hi = mid;
  }
  tCache.set(key, (lo + hi) / 2);
  return (lo + hi) / 2;
}

/** The pooled rate's Wilson interval at its effective n (clusters without trials are left out). */
export function clusteredWilson(all: readonly ClusterCount[], level = 0.95): ClusteredRate {
  const counts = all.filter((c) => c.trials > 0);
  const n = counts.reduce((s, c) => s + c.trials, 0);
  const deff = designEffect(counts);
  const k = counts.length;
  const dfScale = k >= 2 ? (zForLevel(level) / tForLevel(level, k - 1)) ** 2 : 1;
  const effectiveN = Math.min(n, (n / deff) * dfScale);
  const p = n > 0 ? counts.reduce((s, c) => s + c.successes, 0) / n : 0;
  return { clusters: k, designEffect: deff, effectiveN, interval: n > 0 ? wilsonAt(p, effectiveN, level) : null };
}
