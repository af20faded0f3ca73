// Wilson interval against the reference values (4 dp), cross-checked with scipy.stats.binomtest(...).proportion_ci(method='wilson').
import { describe, expect, it } from 'vitest';
import { wilson, zeroFailureTrialsNeeded } from '../../harness/stats/wilson.js';

function at4(interval: [number, number] | null): [string, string] {
  if (interval === null) throw new Error('expected an interval');
  return [interval[0].toFixed(4), interval[1].toFixed(4)];
}

describe('wilson', () => {
  it('matches the published 95% intervals to 4 decimals', () => {
    expect(at4(wilson(25, 25))).toEqual(['0.8668', '1.0000']);
    expect(at4(wilson(0, 25))).toEqual(['0.0000', '0.1332']);
    expect(at4(wilson(299, 300))).toEqual(['0.9814', '0.9994']);
    expect(at4(wilson(10, 100))).toEqual(['0.0552', '0.1744']);
    expect(wilson(30, 30)?.[0].toFixed(3)).toBe('0.886');
  });
  it('matches scipy to 12 decimals where scipy prints full precision', () => {
    const [lo, hi] = wilson(299, 300) ?? [Number.NaN, Number.NaN];
    expect(lo).toBeCloseTo(0.9813633063054688, 12);
    expect(hi).toBeCloseTo(0.9994113422781488, 12);
  });
  it('pins the ends exactly at 0 and 1 for all-fail and all-pass', () => {
    expect(wilson(25, 25)?.[1]).toBe(1);
    expect(wilson(0, 25)?.[0]).toBe(0);
  });
  it('widens with the confidence level (99% vs 95%) and is null with no trials', () => {
    const w95 = wilson(10, 100) ?? [0, 0];
    const w99 = wilson(10, 100, 0.99) ?? [0, 0];
    expect(w99[0]).toBeLessThan(w95[0]);
    expect(w99[1]).toBeGreaterThan(w95[1]);
    // 99%, 25/25: lower bound = n / (n + z^2) with z = 2.5758293035489004 -> 25 / 31.6349 = 0.790265...
    expect(wilson(25, 25, 0.99)?.[0]).toBeCloseTo(25 / (25 + 2.5758293035489004 ** 2), 12);
    expect(wilson(0, 0)).toBeNull();
  });
  it('rejects impossible counts', () => {
    expect(() => wilson(5, 4)).toThrow(RangeError);
    expect(() => wilson(-1, 4)).toThrow(RangeError);
    expect(() => wilson(1.5, 4)).toThrow(RangeError);
  });
});

describe('zeroFailureTrialsNeeded', () => {
  // n/(n + z^2) >= bar  <=>  n >= bar z^2 / (1 - bar): 0.95 * 3.841459 / 0.05 = 72.99 -> 73 (72/72 gives 0.94935, 73/73 gives 0.95001).
  it('gives 73 for a 0.95 bar at 95%', () => {
    expect(zeroFailureTrialsNeeded(0.95)).toBe(73);
    expect(wilson(72, 72)?.[0]).toBeLessThan(0.95);
    expect(wilson(73, 73)?.[0]).toBeGreaterThanOrEqual(0.95);
  });
  it('gives 381 for 0.99 at 95% and 24 for 0.86 at 95% (25/25 -> 0.8668 clears 0.86, 24/24 -> 0.8620 too)', () => {
    expect(zeroFailureTrialsNeeded(0.99)).toBe(381); // 0.99 * 3.841459 / 0.01 = 380.30
    expect(zeroFailureTrialsNeeded(0.86)).toBe(24); // 0.86 * 3.841459 / 0.14 = 23.598
  });
  it('rejects a bar of 1 (never reachable)', () => {
    expect(() => zeroFailureTrialsNeeded(1)).toThrow(RangeError);
  });
});
