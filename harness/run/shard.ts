// Which cycle ids a run owns: all of 1..cycles, or one shard's share of them (combined again by `soak merge`).

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
