// The anytime-valid rate tests against hand-checked values: closed forms of the uniform (below) side, a fine numerical
// integral of the Beta(1, 0.2) (above) side, and the trial counts docs/anytime.md quotes.
import { describe, expect, it } from 'vitest';
import { anytimeInterval, decideRate, eAbove, eBelow, trialsToCertifyAbove } from '../../harness/stats/anytime.js';
import { wilson } from '../../harness/stats/wilson.js';

/** E_above(S, 0, c) for the Beta(1, 0.2) prior by a 200,000-point integral over v = u^0.2 (u = (1 - p) / (1 - c)). */
function aboveByIntegral(successes: number, bar: number): number {
  const n = 200_000;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const u = Math.pow((i + 0.5) / n, 1 / 0.2);
    sum += Math.pow((1 - u * (1 - bar)) / bar, successes);
  }
  return sum / n;
}

describe('anytime-valid rate tests', () => {
  it('certifies "rate > 95%" after 65 clean trials at alpha 0.05, not after 64 (Wilson fixed-n needs 73)', () => {
    expect(eAbove(65, 0, 0.95)).toBeGreaterThanOrEqual(20);
    expect(eAbove(64, 0, 0.95)).toBeLessThan(20);
    expect(eAbove(65, 0, 0.95)).toBeCloseTo(aboveByIntegral(65, 0.95), 2); // 20.26
    expect(trialsToCertifyAbove(0.95, 0, 0.05)).toBe(65);
    expect(wilson(72, 72)?.[0]).toBeLessThan(0.95);
    expect(wilson(73, 73)?.[0]).toBeGreaterThanOrEqual(0.95);
  });

  it('needs 138 trials with one failure and 186 with two (Wilson fixed-n: 110 and 142)', () => {
    expect(trialsToCertifyAbove(0.95, 1, 0.05)).toBe(138);
    expect(trialsToCertifyAbove(0.95, 2, 0.05)).toBe(186);
    expect(decideRate(136, 1, 0.95, 0.05)).toBe('undecided');
    expect(decideRate(137, 1, 0.95, 0.05)).toBe('above');
  });

  it('the below side is the uniform mixture: (1 - (1-c)^(F+1)) / ((F+1) c (1-c)^F) after F failures in a row', () => {
    const closed = (f: number, c: number): number => (1 - (1 - c) ** (f + 1)) / ((f + 1) * c * (1 - c) ** f);
    expect(eBelow(0, 1, 0.95)).toBeCloseTo(closed(1, 0.95), 9); // 10.5: one failure is not enough
    expect(eBelow(0, 2, 0.95)).toBeCloseTo(closed(2, 0.95), 2); // 140.3: two in a row decide "below 95%"
    expect(decideRate(0, 1, 0.95, 0.05)).toBe('undecided');
    expect(decideRate(0, 2, 0.95, 0.05)).toBe('below');
  });

  it('is 1 before any trial (no evidence) and stays a proper mixture at thousands of trials', () => {
    expect(eAbove(0, 0, 0.95)).toBeCloseTo(1, 12);
    expect(eBelow(0, 0, 0.95)).toBeCloseTo(1, 12);
    expect(decideRate(0, 0, 0.5, 0.05)).toBe('undecided');
    expect(Number.isFinite(Math.log(eAbove(5000, 10, 0.95)))).toBe(true);
    expect(decideRate(4990, 10, 0.95, 0.05)).toBe('above');
    expect(decideRate(4000, 1000, 0.95, 0.05)).toBe('below');
  });

  it('gives an interval of the bars it certifies, wider than Wilson on the same counts', () => {
    const [lo, hi] = anytimeInterval(66, 0, 0.05);
    expect(lo).toBeGreaterThan(0.95);
    expect(hi).toBe(1);
    expect(anytimeInterval(0, 0, 0.05)).toEqual([0, 1]);
    const [alo, ahi] = anytimeInterval(50, 10, 0.05);
    const [wlo, whi] = wilson(50, 60, 0.9) ?? [0, 1]; // one-sided 95% each end
    expect(alo).toBeLessThan(wlo);
    expect(ahi).toBeGreaterThan(whi);
    // the interval's ends agree with the decisions at the bar
    expect(decideRate(50, 10, alo - 0.001, 0.05)).toBe('above');
    expect(decideRate(50, 10, alo + 0.001, 0.05)).not.toBe('above');
    expect(decideRate(50, 10, ahi + 0.001, 0.05)).toBe('below');
  });

  it('rejects impossible input', () => {
    expect(() => eAbove(-1, 0, 0.95)).toThrow(RangeError);
    expect(() => eAbove(1.5, 0, 0.95)).toThrow(RangeError);
    expect(() => eBelow(1, 0, 1)).toThrow(RangeError);
    expect(() => decideRate(1, 0, 0.5, 0)).toThrow(RangeError);
  });
});
