// The bench's restore timeline: each step's duration since the step before, a standby's counted from its hand-off.
import { describe, expect, it } from 'vitest';
import { stepDurations } from '../../bench/restore-timeline.js';

describe('stepDurations', () => {
  it('a cold host: from its process start, in time order', () => {
    expect(stepDurations({ storeOpen: 900, main: 850, restoreBegin: 1000, ram: 1500, firstFullHb: 1600 })).toEqual({
      main: 850,
      storeOpen: 50,
      restoreBegin: 100,
      ram: 500,
      firstFullHb: 100,
    });
  });

  it('a standby: from its hand-off, dropping its warm-up', () => {
    expect(
      stepDurations({ main: 800, standbyReady: 2000, handOff: 9000, restoreBegin: 9010, firstFullHb: 9300 }),
    ).toEqual({ restoreBegin: 10, firstFullHb: 290 });
  });
});
