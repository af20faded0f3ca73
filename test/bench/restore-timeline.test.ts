// The bench's restore timeline: each step's duration since the step before, a standby's counted from its hand-off.
import { describe, expect, it } from 'vitest';
import { killToHandOff, stepDurations } from '../../bench/restore-timeline.js';

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

describe('killToHandOff', () => {
  const kills = [
    { killEpochMs: 1_000_000, steps: {} },
    { killEpochMs: 1_005_000, steps: {} },
  ];

  it('from the last kill before the hand-off (epoch ms) to the moment the standby read it', () => {
    expect(killToHandOff({ marks: { handOff: 5_120 }, timeOrigin: 1_000_000 }, kills)).toBe(120);
    expect(killToHandOff({ marks: { handOff: 900 }, timeOrigin: 1_000_000 }, kills)).toBe(900);
  });

  it('none for a cold host, a timeline without a time origin, or no kill before the hand-off', () => {
    expect(killToHandOff({ marks: { restoreBegin: 10 }, timeOrigin: 1_000_000 }, kills)).toBeUndefined();
    expect(killToHandOff({ marks: { handOff: 10 } }, kills)).toBeUndefined();
    expect(killToHandOff({ marks: { handOff: 10 }, timeOrigin: 900_000 }, kills)).toBeUndefined();
  });
});
