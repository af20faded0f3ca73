// How many cycles a run planned: all of the scenario's, or one shard's share of them (run/shard.ts deals them out).

/** Cycles owned by shard `index` of `count` out of 1..cycles ((c - 1) % count === index); all of them without a shard. */
export function plannedCycles(cycles: number, shard?: { index: number; count: number }): number {
  if (!shard) return cycles;
  return shard.index < cycles ? Math.floor((cycles - 1 - shard.index) / shard.count) + 1 : 0;
}
