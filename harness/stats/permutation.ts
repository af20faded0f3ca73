// Two-sided permutation test on the difference of medians: exact enumeration for small samples, seeded Monte Carlo otherwise.
// Hand-written: simple-statistics' permutationTest compares means and only samples; this tests medians, exactly when small.
import { createRng } from './random.js';
import { sortSample } from './sorted.js';

/** Permutation test options. */
export interface PermutationOptions {
  /** Monte Carlo resamples (default 9,999). */
  resamples?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** 'auto' (default) enumerates every split when there are at most `resamples` of them. */
  method?: 'auto' | 'exact' | 'monte-carlo';
}

/** Result: observed median(b) - median(a) and its two-sided p-value. */
export interface PermutationResult {
  observed: number;
  pValue: number;
  method: 'exact' | 'monte-carlo';
  /** Splits evaluated (all of them for exact). */
  permutations: number;
}

/** Number of ways to choose k of n, or Infinity once it exceeds `cap`. */
export function binomial(n: number, k: number, cap = Number.MAX_SAFE_INTEGER): number {
  let c = 1;
  const kk = Math.min(k, n - k);
  for (let i = 1; i <= kk; i++) {
    c = (c * (n - kk + i)) / i;
    if (c > cap) return Number.POSITIVE_INFINITY;
  }
  return Math.round(c);
}

/**
 * median(B) - median(A) for a split of the ascending pool, where mask[i] === stamp marks pool[i] as in A (nA of them).
 * One scan in pool order picks the middle order statistics of both groups: O(n), no copy, no sort.
 */
function splitMedianDiff(pool: Float64Array, mask: Int32Array, stamp: number, nA: number): number {
  const nB = pool.length - nA;
  const aLo = (nA - 1) >> 1;
  const aHi = nA >> 1;
  const bLo = (nB - 1) >> 1;
  const bHi = nB >> 1;
  let ia = 0;
  let ib = 0;
  let sumA = 0;
  let sumB = 0;
  for (let i = 0; i < pool.length && (ia <= aHi || ib <= bHi); i++) {
    const x = pool[i] as number;
    if (mask[i] === stamp) {
      if (ia === aLo) sumA += x;
      if (ia === aHi) sumA += x;
      ia++;
    } else {
      if (ib === bLo) sumB += x;
      if (ib === bHi) sumB += x;
      ib++;
    }
  }
  return sumB / 2 - sumA / 2;
}

/**
 * Two-sided test of "a and b come from the same distribution" with statistic median(b) - median(a).
 * Exact: p = #{splits with |d| >= |observed|} / C(nA + nB, nA). Monte Carlo: p = (#{|d*| >= |observed|} + 1) / (R + 1)
 * (Phipson & Smyth 2010), so p is never 0. Cost O(R (nA + nB)).
 */
export function permutationTestMedians(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  options: PermutationOptions = {},
): PermutationResult {
  const { resamples = 9999, seed = 1, method = 'auto' } = options;
  const nA = a.length;
  const nB = b.length;
  if (nA === 0 || nB === 0) throw new RangeError(`permutation test needs values in both samples (got ${nA} and ${nB})`);
  const n = nA + nB;
  // Sort the pool once, remembering which positions came from a.
  const tagged = new Float64Array(n);
  for (let i = 0; i < nA; i++) tagged[i] = a[i] as number;
  for (let i = 0; i < nB; i++) tagged[nA + i] = b[i] as number;
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (i, j) => (tagged[i] as number) - (tagged[j] as number) || i - j,
  );
  const pool = sortSample(tagged);
  const mask = new Int32Array(n);
  order.forEach((original, pos) => {
    if (original < nA) mask[pos] = 1;
  });
  const observed = splitMedianDiff(pool, mask, 1, nA);
  const bar = Math.abs(observed) * (1 - 1e-12); // splits equal to the observed up to rounding count as extreme
  const splits = binomial(n, nA, resamples);

  if (method === 'exact' || (method === 'auto' && splits <= resamples)) {
    const idx = Array.from({ length: nA }, (_, i) => i);
    let extreme = 0;
    let total = 0;
    for (;;) {
      total++;
      for (const i of idx) mask[i] = total + 1; // stamps start at 2: the observed split used 1
      if (Math.abs(splitMedianDiff(pool, mask, total + 1, nA)) >= bar) extreme++;
      let pos = nA - 1; // next combination in lexicographic order
      while (pos >= 0 && idx[pos] === n - nA + pos) pos--;
      if (pos < 0) break;
      idx[pos]! += 1;
      for (let j = pos + 1; j < nA; j++) idx[j] = (idx[j - 1] as number) + 1;
    }
    return { observed, pValue: extreme / total, method: 'exact', permutations: total };
  }

  const rng = createRng(seed, 1);
  const perm = Uint32Array.from({ length: n }, (_, i) => i);
  const uniforms = new Float64Array(nA);
  let extreme = 0;
  for (let r = 0; r < resamples; r++) {
    rng.fill(uniforms);
    const stamp = r + 2;
    for (let i = 0; i < nA; i++) {
      const j = i + Math.floor((uniforms[i] as number) * (n - i)); // partial Fisher–Yates: perm[0..nA) is a uniform random subset
      const t = perm[i] as number;
      perm[i] = perm[j] as number;
      perm[j] = t;
      mask[perm[i] as number] = stamp;
    }
    if (Math.abs(splitMedianDiff(pool, mask, stamp, nA)) >= bar) extreme++;
  }
  return { observed, pValue: (extreme + 1) / (resamples + 1), method: 'monte-carlo', permutations: resamples };
}
