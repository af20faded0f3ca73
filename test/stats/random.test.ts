// createRng: outputs equal an independent C (uint32_t) implementation of the same splitmix32 seeding + sfc32; ranges and uniformity.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../harness/stats/random.js';

function first(seed: number, stream: number, k: number): number[] {
  const rng = createRng(seed, stream);
  return Array.from({ length: k }, () => rng.uint32());
}

describe('createRng', () => {
  it('matches the C reference output (gcc, uint32_t arithmetic) for three seeds/streams', () => {
    expect(first(0, 0, 5)).toEqual([591558436, 2737234123, 107644106, 1338548054, 2499804003]);
    expect(first(42, 0, 5)).toEqual([2476999517, 2284424721, 914527439, 3398404915, 1005869237]);
    expect(first(42, 7, 5)).toEqual([2567776567, 2983641349, 411624516, 1848390249, 735247416]);
  });
  it('is deterministic per seed and differs between seeds', () => {
    expect(first(7, 0, 10)).toEqual(first(7, 0, 10));
    expect(first(7, 0, 10)).not.toEqual(first(8, 0, 10));
  });
  it('int covers [min, max] inclusively and evenly (chi-square, 9 df, 99.9% critical value 27.88)', () => {
    const rng = createRng(3);
    const counts = new Array<number>(10).fill(0);
    const draws = 100_000;
    for (let i = 0; i < draws; i++) {
      const v = rng.int(1, 10);
      if (!(v >= 1 && v <= 10)) throw new Error(`int(1, 10) gave ${v}`);
      counts[v - 1]! += 1;
    }
    const expected = draws / 10;
    const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(27.88);
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });
  it('next and uniform stay in their half-open ranges', () => {
    const rng = createRng(11);
    for (let i = 0; i < 10_000; i++) {
      const u = rng.next();
      const x = rng.uniform(150, 500);
      if (!(u >= 0 && u < 1 && x >= 150 && x < 500)) throw new Error(`out of range: ${u}, ${x}`);
    }
  });
  it('fill gives the same numbers as repeated next()', () => {
    const a = createRng(5);
    const b = createRng(5);
    const filled = a.fill(new Float64Array(100));
    expect(Array.from(filled)).toEqual(Array.from({ length: 100 }, () => b.next()));
    expect(a.next()).toBe(b.next()); // state carried over
  });
  it('rejects bad seeds and ranges', () => {
    expect(() => createRng(-1)).toThrow(RangeError);
    expect(() => createRng(1.5)).toThrow(RangeError);
    expect(() => createRng(2 ** 32)).toThrow(RangeError);
    expect(() => createRng(1).int(5, 4)).toThrow(RangeError);
  });
});
