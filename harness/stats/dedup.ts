// Storage dedup ratio: logical bytes handed to the store / bytes it actually stored; merge by summing bytes, never averaging ratios.

/** Bytes accounting of one run (or shard). */
export interface DedupBytes {
  logicalBytes: number;
  storedBytes: number;
}

/** logical / stored; null when nothing was stored (no checkpoints, or all bytes deduplicated against an earlier run). */
export function dedupRatio(logicalBytes: number, storedBytes: number): number | null {
  if (!(logicalBytes >= 0 && storedBytes >= 0))
    throw new RangeError(`dedupRatio: bytes must be >= 0, got ${logicalBytes} / ${storedBytes}`);
  return storedBytes === 0 ? null : logicalBytes / storedBytes;
}

/** Combine shards: the ratio of the summed bytes equals the ratio of one run over the union. */
export function mergeDedup(parts: readonly DedupBytes[]): DedupBytes & { ratio: number | null } {
  let logicalBytes = 0;
  let storedBytes = 0;
  for (const p of parts) {
    logicalBytes += p.logicalBytes;
    storedBytes += p.storedBytes;
  }
  return { logicalBytes, storedBytes, ratio: dedupRatio(logicalBytes, storedBytes) };
}
