// The shard rule, its one home: shard i/n of a soak owns the cycle ids c with (c - 1) % n === i (`soak merge` combines
// the shards again). Which ids a run owns, how many, whether two shards can share one, the --shard flag, and the seed
// a nightly key gives each shard (`--seed-from`).
import { createHash } from 'node:crypto';
import { InputError } from '../core/errors.js';

/** One shard i/n of a soak. */
export interface Shard {
  index: number;
  count: number;
}

/** Whether `shard` owns cycle id `c` (without a shard, a run owns every cycle). */
export function ownsCycle(c: number, shard?: Shard): boolean {
  return !shard || (c - 1) % shard.count === shard.index;
}

/** Cycle ids a run (or one shard of it) owns among 1..cycles, in order. */
export function cycleIds(cycles: number, shard?: Shard): number[] {
  const ids: number[] = [];
  for (let c = 1; c <= cycles; c++) if (ownsCycle(c, shard)) ids.push(c);
  return ids;
}

/** How many of 1..cycles a run (or one shard of it) owns: cycleIds(cycles, shard).length, without listing them. */
export function plannedCycles(cycles: number, shard?: Shard): number {
  if (!shard) return cycles;
  return shard.index < cycles ? Math.floor((cycles - 1 - shard.index) / shard.count) + 1 : 0;
}

/** The shards of a soak that a set of shard runs lacks: for each shard count n present, the indices 0..n-1 absent. */
export function missingShards(present: readonly Shard[]): Shard[] {
  const missing: Shard[] = [];
  for (const count of [...new Set(present.map((s) => s.count))].sort((a, b) => a - b))
    for (let index = 0; index < count; index++)
      if (!present.some((s) => s.count === count && s.index === index)) missing.push({ index, count });
  return missing;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Whether shards (i, n) and (j, m) can own one cycle id: c - 1 = i mod n = j mod m has a solution iff i = j mod gcd. */
export function shardsMeet(a: Shard, b: Shard): boolean {
  return (a.index - b.index) % gcd(a.count, b.count) === 0;
}

/** The --shard flag's `i/n`, with 0 <= i < n (0-based, as Kubernetes' JOB_COMPLETION_INDEX). */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count)
    throw new InputError(`--shard: expected i/n with 0 <= i < n (e.g. 0/4), got "${text}"`);
  return { index, count };
}

/**
 * The seed a nightly key (e.g. the date "2026-12-01") gives shard `index` (0 when unsharded): the first 32 bits of
 * sha256("<key>#<index>"), so every shard of a night has its own seed and the same night always the same seeds.
 */
export function seedFromKey(key: string, shard?: Shard): number {
  return createHash('sha256')
    .update(`${key}#${shard?.index ?? 0}`)
    .digest()
    .readUInt32BE(0);
}
