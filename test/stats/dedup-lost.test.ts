// Dedup ratio and lost work: hand-computed values, and merging shards equals one run over the union.
import { describe, expect, it } from 'vitest';
import { dedupRatio, mergeDedup } from '../../harness/stats/dedup.js';
import { countLostBeyond, summarizeLostWork } from '../../harness/stats/lost-work.js';

describe('dedup', () => {
  it('is logical / stored, null when nothing was stored', () => {
    expect(dedupRatio(1000, 250)).toBe(4);
    expect(dedupRatio(0, 0)).toBeNull();
    expect(() => dedupRatio(-1, 2)).toThrow(RangeError);
  });
  it('merges by summing bytes: (100 + 900) / (50 + 100) = 6.667, not the mean of 2 and 9', () => {
    const merged = mergeDedup([
      { logicalBytes: 100, storedBytes: 50 },
      { logicalBytes: 900, storedBytes: 100 },
    ]);
    expect(merged).toEqual({ logicalBytes: 1000, storedBytes: 150, ratio: 1000 / 150 });
  });
});

describe('lost work', () => {
  it('summarises measured cycles and counts those over a limit', () => {
    const lost = [3, null, 19, 40, 0];
    expect(summarizeLostWork(lost)).toEqual({ n: 4, max: 40, mean: 62 / 4 });
    expect(summarizeLostWork([null])).toEqual({ n: 0, max: null, mean: null });
    expect(countLostBeyond(lost, 19)).toBe(1);
    expect(countLostBeyond(lost, 2)).toBe(3);
  });
});
