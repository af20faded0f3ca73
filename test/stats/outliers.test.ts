// MAD outlier flags against hand computation (Iglewicz & Hoaglin 1993: M = 0.6745 (x - median) / MAD, flag |M| > 3.5).
import { describe, expect, it } from 'vitest';
import { madOutliers } from '../../harness/stats/outliers.js';

describe('madOutliers', () => {
  // [1, 2, 3, 4, 100]: median 3, |deviations| 2,1,0,1,97 -> MAD 1; M(100) = 0.6745 * 97 = 65.4265, M(1) = -1.349.
  it('flags only the far value and keeps every value in place', () => {
    const r = madOutliers([1, 2, 3, 4, 100]);
    expect(r.median).toBe(3);
    expect(r.mad).toBe(1);
    expect(r.scores[4]).toBeCloseTo(65.4265, 10);
    expect(r.scores[0]).toBeCloseTo(-1.349, 10);
    expect(r.flags).toEqual([false, false, false, false, true]);
    expect(r.flagged).toBe(1);
    expect(r.scores).toHaveLength(5);
  });
  // [10, 12, 14, 16, 18, 26]: median 15, |dev| 5,3,1,1,3,11 -> MAD 3; M(26) = 0.6745 * 11 / 3 = 2.473 (not flagged).
  it('does not flag a moderately large value', () => {
    const r = madOutliers([10, 12, 14, 16, 18, 26]);
    expect(r.mad).toBe(3);
    expect(r.scores[5]).toBeCloseTo((0.6745 * 11) / 3, 12);
    expect(r.flagged).toBe(0);
  });
  // MAD = 0: [5,5,5,5,9]: mean |dev| = 4/5 = 0.8, scale 1.253314 * 0.8 = 1.0026512; M(9) = 4 / 1.0026512 = 3.98942 -> flagged.
  it('falls back to the mean absolute deviation when MAD is 0', () => {
    const r = madOutliers([5, 5, 5, 5, 9]);
    expect(r.mad).toBe(0);
    expect(r.scores[4]).toBeCloseTo(4 / (1.253314 * 0.8), 10);
    expect(r.flags).toEqual([false, false, false, false, true]);
    expect(madOutliers([2, 2, 2]).flagged).toBe(0);
    expect(madOutliers([]).flagged).toBe(0);
  });
});
