// MAD-based outlier flags (Iglewicz & Hoaglin 1993): modified z = 0.6745 (x - median) / MAD, flagged when |z| > 3.5; data kept.
import { medianSorted } from './quantile.js';
import { sortSample } from './sorted.js';

/** Per-value scores and flags, aligned with the input order. */
export interface OutlierReport {
  median: number | null;
  /** Median absolute deviation from the median (unscaled). */
  mad: number | null;
  /** Modified z-score of each input value (0 when the spread is 0). */
  scores: number[];
  /** True where |score| > threshold; nothing is removed. */
  flags: boolean[];
  /** Number of flagged values. */
  flagged: number;
}

/**
 * Flag outliers in a sample (any order). When MAD = 0 (over half the values tie) the score falls back to
 * (x - median) / (1.253314 * mean absolute deviation) (the IBM SPSS convention); when that is 0 too, nothing is flagged.
 */
export function madOutliers(values: ArrayLike<number>, threshold = 3.5): OutlierReport {
  const n = values.length;
  if (n === 0) return { median: null, mad: null, scores: [], flags: [], flagged: 0 };
  const median = medianSorted(sortSample(values));
  const deviations = new Float64Array(n);
  for (let i = 0; i < n; i++) deviations[i] = Math.abs((values[i] as number) - median);
  let meanAbs = 0;
  for (let i = 0; i < n; i++) meanAbs += deviations[i] as number;
  meanAbs /= n;
  const mad = medianSorted(deviations.sort());
  const scale = mad > 0 ? mad / 0.6745 : 1.253314 * meanAbs;
  const scores: number[] = [];
  const flags: boolean[] = [];
  let flagged = 0;
  for (let i = 0; i < n; i++) {
    const score = scale > 0 ? ((values[i] as number) - median) / scale : 0;
    const flag = Math.abs(score) > threshold;
    scores.push(score);
    flags.push(flag);
    if (flag) flagged++;
  }
  return { median, mad, scores, flags, flagged };
}
