// Which cycle ids a run owns (all of 1..cycles, or one shard's share, combined again by `soak merge`), and the seed a
// nightly key gives each shard (`--seed-from`).
import { createHash } from 'node:crypto';

/** One shard i/n of a soak: it runs the cycle ids c with (c - 1) % count === index. */
export interface Shard {
  index: number;
  count: number;
}

/** Cycle ids a run (or one shard of it) owns: 1..cycles, or those with (c - 1) % count === index. */
export function cycleIds(cycles: number, shard?: Shard): number[] {
  const ids: number[] = [];
  for (let c = 1; c <= cycles; c++) if (!shard || (c - 1) % shard.count === shard.index) ids.push(c);
  return ids;
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
