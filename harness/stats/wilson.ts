// Wilson score interval for a binomial proportion (Wilson 1927), and the zero-failure trial count needed to clear a bar.
// Hand-written: simple-statistics has no interval for a binomial proportion.
import { zForLevel } from './normal.js';

/** A closed interval [lo, hi]. */
export type Interval = [number, number];

/** Wilson score interval for `successes` out of `trials` at a two-sided confidence level; null when trials = 0. */
export function wilson(successes: number, trials: number, level = 0.95): Interval | null {
  if (!Number.isInteger(successes) || !Number.isInteger(trials) || successes < 0 || trials < 0 || successes > trials) {
    throw new RangeError(`wilson: need integers 0 <= successes <= trials, got ${successes}/${trials}`);
  }
  if (trials === 0) return null;
  return wilsonAt(successes / trials, trials, level);
}

/**
 * The Wilson interval of an observed proportion `p` at sample size `n` > 0, which may be fractional (an effective n:
 * stats/cluster.ts); the ends are exactly 0 and 1 when `p` is.
 */
export function wilsonAt(p: number, n: number, level = 0.95): Interval {
  const z = zForLevel(level);
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const lo = p === 0 ? 0 : Math.max(0, centre - half);
  const hi = p === 1 ? 1 : Math.min(1, centre + half);
  return [lo, hi];
}

/** Smallest n such that n successes in n trials has a Wilson lower bound >= bar (bar in (0, 1)). */
export function zeroFailureTrialsNeeded(bar: number, level = 0.95): number {
  if (!(bar > 0 && bar < 1)) throw new RangeError(`zeroFailureTrialsNeeded: bar must be in (0, 1), got ${bar}`);
  // With x = n the lower bound simplifies to n / (n + z^2), so n >= bar * z^2 / (1 - bar); step to absorb rounding.
  const z = zForLevel(level);
  let n = Math.max(1, Math.ceil((bar * z * z) / (1 - bar)) - 1);
  while ((wilson(n, n, level)?.[0] ?? 0) < bar) n++;
  return n;
}
