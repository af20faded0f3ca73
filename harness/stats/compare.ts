// A/B comparison of two latency samples (lower is better): permutation p-value, bootstrap CI of the median difference, verdict.
import { percentileInterval, resampleSorted } from './bootstrap.js';
import { permutationTestMedians } from './permutation.js';
import { medianSorted } from './quantile.js';
import { createRng } from './random.js';
import { sortSample } from './sorted.js';

/** Defaults: alpha 0.05; a change must be at least 5 ms AND at least 10% of the baseline median to count. */
export const COMPARE_DEFAULTS = {
  alpha: 0.05,
  minEffectMs: 5,
  minEffectRelative: 0.1,
  resamples: 9999,
  bootstrapResamples: 2000,
  level: 0.95,
  seed: 1,
} as const;

/** Comparison options; every field defaults to COMPARE_DEFAULTS. */
export type CompareOptions = Partial<{ -readonly [K in keyof typeof COMPARE_DEFAULTS]: number }>;

/** What changed from baseline a to candidate b. */
export type CompareVerdict = 'regression' | 'improvement' | 'no change';

/** Full A/B result; `diff` is median(b) - median(a), so positive means b is slower. */
export interface Comparison {
  nA: number;
  nB: number;
  medianA: number;
  medianB: number;
  diff: number;
  /** diff / median(a) (null when median(a) = 0). */
  relative: number | null;
  pValue: number;
  method: 'exact' | 'monte-carlo';
  permutations: number;
  /** Percentile bootstrap CI of the median difference. */
  ci: [number, number];
  level: number;
  verdict: CompareVerdict;
  /** One line explaining the verdict. */
  reason: string;
}

/** Compare baseline `a` with candidate `b`: significant (p < alpha) AND large (>= minEffectMs and >= minEffectRelative) or 'no change'. */
export function compareSamples(a: ArrayLike<number>, b: ArrayLike<number>, options: CompareOptions = {}): Comparison {
  const o = { ...COMPARE_DEFAULTS, ...options };
  const sortedA = sortSample(a);
  const sortedB = sortSample(b);
  if (sortedA.length === 0 || sortedB.length === 0)
    throw new RangeError(`compare needs values in both samples (got ${sortedA.length} and ${sortedB.length})`);
  const medianA = medianSorted(sortedA);
  const medianB = medianSorted(sortedB);
  const diff = medianB - medianA;
  const relative = medianA === 0 ? null : diff / Math.abs(medianA);
  const test = permutationTestMedians(sortedA, sortedB, { resamples: o.resamples, seed: o.seed });

  const rng = createRng(o.seed, 2);
  const countsA = new Uint32Array(sortedA.length);
  const countsB = new Uint32Array(sortedB.length);
  const bufA = new Float64Array(sortedA.length);
  const bufB = new Float64Array(sortedB.length);
  const replicates = new Float64Array(o.bootstrapResamples);
  for (let r = 0; r < o.bootstrapResamples; r++) {
    const ra = resampleSorted(sortedA, rng, countsA, bufA);
    const rb = resampleSorted(sortedB, rng, countsB, bufB);
    replicates[r] = medianSorted(rb) - medianSorted(ra);
  }
  const ci = percentileInterval(replicates, o.level);

  const significant = test.pValue < o.alpha;
  const largeAbs = Math.abs(diff) >= o.minEffectMs;
  const largeRel = relative === null || Math.abs(relative) >= o.minEffectRelative;
  let verdict: CompareVerdict = 'no change';
  if (significant && largeAbs && largeRel) verdict = diff > 0 ? 'regression' : 'improvement';
  const pct = relative === null ? 'n/a' : `${(relative * 100).toFixed(1)}%`;
  const why = !significant
    ? `p = ${test.pValue.toPrecision(3)} >= alpha ${o.alpha}`
    : !(largeAbs && largeRel)
      ? `significant (p = ${test.pValue.toPrecision(3)}) but |diff| ${Math.abs(diff).toFixed(1)} ms (${pct}) is below the minimum effect (${o.minEffectMs} ms and ${o.minEffectRelative * 100}%)`
      : `p = ${test.pValue.toPrecision(3)} < ${o.alpha}, median diff ${diff.toFixed(1)} ms (${pct})`;
  return {
    nA: sortedA.length,
    nB: sortedB.length,
    medianA,
    medianB,
    diff,
    relative,
    pValue: test.pValue,
    method: test.method,
    permutations: test.permutations,
    ci,
    level: o.level,
    verdict,
    reason: `${verdict}: ${why}`,
  };
}
