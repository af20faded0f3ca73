// Seeded percentile bootstrap confidence interval of any statistic of one sample (Efron & Tibshirani 1993, ch. 13).
// Hand-written: simple-statistics' sampleWithReplacement would need a sort per replicate; this resample comes out sorted.
import { createRng, type Rng } from './random.js';
import { quantileSorted } from './quantile.js';
import type { SortedSample } from './sorted.js';

/** Options shared by the bootstrap helpers. */
export interface BootstrapOptions {
  /** Number of resamples (default 2,000). */
  resamples?: number;
  /** Two-sided confidence level (default 0.95). */
  level?: number;
  /** PRNG seed (default 1): same seed, same interval. */
  seed?: number;
}

/** A bootstrap interval with the statistic on the original sample. */
export interface BootstrapCi {
  estimate: number;
  lo: number;
  hi: number;
  level: number;
  resamples: number;
}

/** A statistic of an ascending sample, e.g. (s) => quantileSorted(s, 0.95). */
export type SortedStatistic = (sorted: SortedSample) => number;

/** Draw one resample of an ascending sample, already ascending: count draws per index, then expand in order (O(n)). */
export function resampleSorted(sorted: SortedSample, rng: Rng, counts: Uint32Array, out: Float64Array): Float64Array {
  const n = sorted.length;
  counts.fill(0);
  rng.fill(out); // uniforms first, then reuse `out` for the resample (index bias < n / 2^32: negligible)
  for (let i = 0; i < n; i++) counts[Math.floor((out[i] as number) * n)]! += 1;
  let k = 0;
  for (let i = 0; i < n; i++) {
    const x = sorted[i] as number;
    for (let c = counts[i] as number; c > 0; c--) out[k++] = x;
  }
  return out;
}

/** Options with their defaults filled in and checked (RangeError on a bad resample count or level). */
export function bootstrapSettings(options: BootstrapOptions): Required<BootstrapOptions> {
  const { resamples = 2000, level = 0.95, seed = 1 } = options;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`bootstrap: resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap: level must be in (0, 1), got ${level}`);
  return { resamples, level, seed };
}

/** Percentile interval of already computed bootstrap replicates (sorted in place). */
export function percentileInterval(replicates: Float64Array, level: number): [number, number] {
  replicates.sort();
  const alpha = 1 - level;
  return [quantileSorted(replicates, alpha / 2), quantileSorted(replicates, 1 - alpha / 2)];
}

/** Percentile bootstrap CI of `statistic` over an ascending sample; null when the sample is empty. */
export function bootstrapCiSorted(
  sorted: SortedSample,
  statistic: SortedStatistic,
  options: BootstrapOptions = {},
): BootstrapCi | null {
  const { resamples, level, seed } = bootstrapSettings(options);
  const n = sorted.length;
  if (n === 0) return null;
  const rng = createRng(seed);
  const counts = new Uint32Array(n);
  const buffer = new Float64Array(n);
  const replicates = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) replicates[r] = statistic(resampleSorted(sorted, rng, counts, buffer));
  const [lo, hi] = percentileInterval(replicates, level);
  return { estimate: statistic(sorted), lo, hi, level, resamples };
}
