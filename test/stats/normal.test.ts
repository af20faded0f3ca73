// inverseNormal / zForLevel against published quantiles of the standard normal (values from scipy.stats.norm.ppf, which uses the Cephes ndtri).
import { describe, expect, it } from 'vitest';
import { inverseNormal, zForLevel } from '../../harness/stats/normal.js';

const published: Array<[number, number]> = [
  [1e-300, -37.0470962993612],
  [1e-20, -9.262340089798409],
  [1e-10, -6.361340902404056],
  [0.001, -3.090232306167813],
  [0.01, -2.3263478740408408],
  [0.025, -1.9599639845400545],
  [0.05, -1.6448536269514729],
  [0.1, -1.2815515655446004],
  [0.3, -0.5244005127080409],
  [0.5, 0],
  [0.7, 0.5244005127080407],
  [0.9, 1.2815515655446004],
  [0.975, 1.959963984540054],
  [0.995, 2.5758293035489004],
  [0.999999, 4.753424308817087],
];

describe('inverseNormal', () => {
  it.each(published)('probit(%d) matches the published quantile to 1e-12 relative', (p, z) => {
    const got = inverseNormal(p);
    expect(Math.abs(got - z)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(z)));
  });
  it('rejects p outside (0, 1)', () => {
    expect(() => inverseNormal(0)).toThrow(RangeError);
    expect(() => inverseNormal(1)).toThrow(RangeError);
    expect(() => inverseNormal(Number.NaN)).toThrow(RangeError);
  });
});

describe('zForLevel', () => {
  it('gives the textbook two-sided critical values', () => {
    expect(zForLevel(0.95)).toBeCloseTo(1.959963984540054, 12);
    expect(zForLevel(0.99)).toBeCloseTo(2.5758293035489004, 12);
    expect(zForLevel(0.9)).toBeCloseTo(1.6448536269514729, 12);
  });
});
