// Fast percentile bootstrap for a type-7 quantile: samples the resample's order statistics directly (O(1) per resample).
// A bootstrap resample's j-th order statistic is sorted[floor(n U_(j))] with U_(j) ~ Beta(j, n - j + 1), the j-th of n uniform
// order statistics; the next one is U_(j) + (1 - U_(j)) (1 - W^(1 / (n - j))). Same distribution as resampling, n times faster.
import type { BootstrapCi, BootstrapOptions } from './bootstrap.js';
import { bootstrapSettings, percentileInterval } from './bootstrap.js';
import { quantileSorted } from './quantile.js';
import { createRng, type Rng } from './random.js';
import type { SortedSample } from './sorted.js';

function normal(rng: Rng): number {
  const u1 = 1 - rng.next(); // (0, 1]
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
}

/** Gamma(shape, 1) for shape >= 1 (Marsaglia & Tsang 2000). */
function gamma(rng: Rng, shape: number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(rng);
    const t = 1 + c * x;
    if (t <= 0) continue;
    const v = t * t * t;
    const u = 1 - rng.next();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Percentile bootstrap CI of the type-7 p-quantile of an ascending sample; null when empty. */
export function bootstrapQuantileCi(sorted: SortedSample, p: number, options: BootstrapOptions = {}): BootstrapCi | null {
  const { resamples, level, seed } = bootstrapSettings(options);
  const n = sorted.length;
  if (n === 0) return null;
  const estimate = quantileSorted(sorted, p);
  const h = (n - 1) * p;
  const k = Math.floor(h); // 0-based: the resample's (k+1)-th order statistic, and the next one when h has a fraction
  const frac = h - k;
  const at = (u: number): number => sorted[Math.min(n - 1, Math.floor(u * n))] as number;
  const rng = createRng(seed, 3);
  const replicates = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    const g1 = gamma(rng, k + 1);
    const u = g1 / (g1 + gamma(rng, n - k)); // U_(k+1) ~ Beta(k + 1, n - k)
    const lo = at(u);
    if (frac === 0 || k + 1 >= n) {
      replicates[r] = lo;
      continue;
    }
    const next = u + (1 - u) * (1 - Math.pow(1 - rng.next(), 1 / (n - k - 1)));
    replicates[r] = lo + frac * (at(next) - lo);
  }
  const [ciLo, ciHi] = percentileInterval(replicates, level);
  return { estimate, lo: ciLo, hi: ciHi, level, resamples };
}
