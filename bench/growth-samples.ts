// The growth bench's per-cycle samples (bench/growth.ts): a soak journal's resumed cycles, each with the checkpoints
// committed before it, each checkpoint's bytes, and the cycles grouped by the checkpoints in the store.
import { median } from './measure.js';

/** One cycle of a soak: its downtime and the checkpoints committed in the store before it ended. */
export interface CycleSample {
  checkpoints: number;
  downtimeMs: number;
}

/** A journal's resumed cycles in order, each with the checkpoints journaled before it, and each checkpoint's bytes. */
export function journalSamples(ndjson: string): {
  cycles: CycleSample[];
  checkpoints: Array<{ logicalBytes: number; storedBytes: number }>;
} {
  const cycles: CycleSample[] = [];
  const checkpoints: Array<{ logicalBytes: number; storedBytes: number }> = [];
  for (const line of ndjson.split('\n')) {
    if (line.trim() === '') continue;
    let e: { type?: unknown; downtimeMs?: unknown; logicalBytes?: unknown; storedBytes?: unknown };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      continue; // a torn last line
    }
    if (e.type === 'checkpoint' && typeof e.logicalBytes === 'number' && typeof e.storedBytes === 'number')
      checkpoints.push({ logicalBytes: e.logicalBytes, storedBytes: e.storedBytes });
    else if (e.type === 'cycle' && typeof e.downtimeMs === 'number')
      cycles.push({ checkpoints: checkpoints.length, downtimeMs: e.downtimeMs });
  }
  return { cycles, checkpoints };
}

/** A soak's cycles in `groups` consecutive groups: checkpoints in the store (first-last), n, downtime p50 and max. */
export function byCheckpoints(
  cycles: readonly CycleSample[],
  groups = 3,
): Array<{ from: number; to: number; n: number; p50: number; max: number }> {
  const size = Math.ceil(cycles.length / groups);
  const out: Array<{ from: number; to: number; n: number; p50: number; max: number }> = [];
  for (let i = 0; i < cycles.length; i += size) {
    const g = cycles.slice(i, i + size);
    const ms = g.map((c) => c.downtimeMs);
    out.push({
      from: g[0]!.checkpoints,
      to: g.at(-1)!.checkpoints,
      n: g.length,
      p50: median(ms),
      max: Math.max(...ms),
    });
  }
  return out;
}
