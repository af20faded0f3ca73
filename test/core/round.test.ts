// Rounding a recorded number (core/round.ts), the one rule every writer uses: exact values, half up, no -0; the journal
// keeps times and durations to the microsecond.
import { describe, expect, it } from 'vitest';
import { roundMs, roundTo } from '../../harness/core/round.js';

describe('roundTo / roundMs', () => {
  it('rounds to the given places, half up, and never yields -0', () => {
    expect(roundTo(12.345678, 1)).toBe(12.3);
    expect(roundTo(12.35, 1)).toBe(12.4);
    expect(roundTo(0.125, 2)).toBe(0.13);
    expect(roundTo(7.5, 0)).toBe(8);
    expect(Object.is(roundTo(-0.00001, 3), 0)).toBe(true);
    expect(roundTo(-1.26, 1)).toBe(-1.3);
  });

  it('keeps a journaled time to the microsecond', () => {
    expect(roundMs(1234.5678912)).toBe(1234.568);
    expect(roundMs(0.0004)).toBe(0);
    expect(roundMs(1e-3)).toBe(0.001);
  });
});
