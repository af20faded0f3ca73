// The shard rule (scenario/shard.ts), its one home: shard i/n owns the cycle ids c with (c - 1) % n === i. The count,
// the overlap test and the flag agree with the listed ids on every small case (checked against brute force).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import {
  cycleIds,
  missingShards,
  ownsCycle,
  parseShard,
  plannedCycles,
  shardsMeet,
} from '../../harness/scenario/shard.js';

describe('the shard rule', () => {
  it('deals 1..cycles out round-robin: every id to exactly one shard', () => {
    expect(cycleIds(10, { index: 1, count: 4 })).toEqual([2, 6, 10]);
    expect(cycleIds(3)).toEqual([1, 2, 3]);
    for (let n = 1; n <= 5; n++) {
      const dealt = Array.from({ length: n }, (_, i) => cycleIds(13, { index: i, count: n })).flat();
      expect(dealt.sort((a, b) => a - b)).toEqual(cycleIds(13));
    }
  });

  it('plannedCycles counts what cycleIds lists, including shards past the last cycle', () => {
    for (let cycles = 0; cycles <= 9; cycles++)
      for (let n = 1; n <= 5; n++)
        for (let i = 0; i < n; i++)
          expect(plannedCycles(cycles, { index: i, count: n }), `${cycles} ${i}/${n}`).toBe(
            cycleIds(cycles, { index: i, count: n }).length,
          );
    expect(plannedCycles(7)).toBe(7);
  });

  it('shardsMeet says whether two shards can own one cycle id (brute force over 1..60)', () => {
    for (const [n, m] of [
      [2, 4],
      [3, 4],
      [4, 6],
      [5, 5],
    ] as const)
      for (let i = 0; i < n; i++)
        for (let j = 0; j < m; j++) {
          const a = { index: i, count: n };
          const b = { index: j, count: m };
          const shared = Array.from({ length: 60 }, (_, k) => k + 1).some((c) => ownsCycle(c, a) && ownsCycle(c, b));
          expect(shardsMeet(a, b), `${i}/${n} ${j}/${m}`).toBe(shared);
        }
  });

  it('--shard takes i/n with 0 <= i < n and refuses anything else', () => {
    expect(parseShard(' 2/4 ')).toEqual({ index: 2, count: 4 });
    for (const bad of ['4/4', '1/0', '-1/4', '1', 'a/b', '1/2/3'])
      expect(() => parseShard(bad), bad).toThrow(InputError);
  });
});

describe('missingShards', () => {
  it('names the indices of each shard count that no run stands for', () => {
    expect(missingShards([{ index: 0, count: 2 }])).toEqual([{ index: 1, count: 2 }]);
    expect(
      missingShards([
        { index: 2, count: 3 },
        { index: 0, count: 3 },
      ]),
    ).toEqual([{ index: 1, count: 3 }]);
    expect(
      missingShards([
        { index: 1, count: 2 },
        { index: 0, count: 2 },
      ]),
    ).toEqual([]);
    expect(missingShards([])).toEqual([]);
  });
});
