// Consecutive cycles binned for the per-cycle chart of a large run: per bin the median, p5/p95 and max downtime and its failures, read straight from the typed columns.
import type { KillPhase } from '../../journal/events.js';
import { quantileSorted } from '../../stats/quantile.js';
import type { CycleTable } from '../../analysis/summary.js';

/** Up to this many cycles the per-cycle chart draws every cycle; above it, bins. */
export const MAX_UNBINNED_CYCLES = 2000;

/** At most this many bins (about one per pixel of the wide chart). */
export const MAX_CYCLE_BINS = 1000;

/** One bin of consecutive cycles (table rows, so cycle numbers ascend). Downtime fields are null when no cycle in it resumed. */
export interface CycleBin {
  /** First and last cycle number in the bin, and the midpoint the median and band are drawn at. */
  cycleFrom: number;
  cycleTo: number;
  cycleMid: number;
  cycles: number;
  /** Cycles with a downtime (they resumed, even if the checker then failed them). */
  resumed: number;
  p5Ms: number | null;
  medianMs: number | null;
  p95Ms: number | null;
  maxMs: number | null;
  /** The cycle with the longest downtime (the first one on a tie) and the phase its kill actually landed in. */
  maxCycle: number | null;
  maxPhase: KillPhase | null;
  /** Cycles whose outcome is not ok (fail or indeterminate), as in the unbinned chart. */
  failed: number;
  /** Failed cycles that resumed: the longest downtime among them and its cycle. */
  failedResumed: number;
  failedMaxMs: number | null;
  failedMaxCycle: number | null;
  /** Failed cycles that never resumed, and the first of them. */
  failedNeverResumed: number;
  firstNeverResumedCycle: number | null;
}

/** The bins and how many cycles each holds (the last may hold fewer). */
export interface CycleBinning {
  perBin: number;
  bins: CycleBin[];
}

/** The smallest 1, 2 or 5 x 10^k that splits n cycles into at most maxBins bins. */
export function cyclesPerBin(n: number, maxBins: number): number {
  const least = Math.max(1, Math.ceil(n / maxBins));
  for (let scale = 1; ; scale *= 10) for (const m of [1, 2, 5]) if (m * scale >= least) return m * scale;
}

/** Bin the table's rows in order into runs of cyclesPerBin(length, maxBins); one scratch array, no object per cycle. */
export function binCycles(cycles: CycleTable, maxBins = MAX_CYCLE_BINS): CycleBinning {
  const perBin = cyclesPerBin(cycles.length, maxBins);
  const scratch = new Float64Array(perBin);
  const bins: CycleBin[] = [];
  for (let start = 0; start < cycles.length; start += perBin) {
    const end = Math.min(cycles.length, start + perBin);
    const bin: CycleBin = {
      cycleFrom: cycles.cycle[start]!,
      cycleTo: cycles.cycle[end - 1]!,
      cycleMid: (cycles.cycle[start]! + cycles.cycle[end - 1]!) / 2,
      cycles: end - start,
      resumed: 0,
      p5Ms: null,
      medianMs: null,
      p95Ms: null,
      maxMs: null,
      maxCycle: null,
      maxPhase: null,
      failed: 0,
      failedResumed: 0,
      failedMaxMs: null,
      failedMaxCycle: null,
      failedNeverResumed: 0,
      firstNeverResumedCycle: null,
    };
    let maxAt = -1;
    for (let i = start; i < end; i++) {
      const ms = cycles.downtimeMs[i]!;
      const failed = cycles.outcome[i] !== 'ok';
      if (failed) bin.failed++;
      if (Number.isNaN(ms)) {
        if (failed && bin.failedNeverResumed++ === 0) bin.firstNeverResumedCycle = cycles.cycle[i]!;
        continue;
      }
      scratch[bin.resumed++] = ms;
      if (maxAt < 0 || ms > cycles.downtimeMs[maxAt]!) maxAt = i;
      if (!failed) continue;
      bin.failedResumed++;
      if (bin.failedMaxMs === null || ms > bin.failedMaxMs) {
        bin.failedMaxMs = ms;
        bin.failedMaxCycle = cycles.cycle[i]!;
      }
    }
    if (bin.resumed > 0) {
      const sorted = scratch.subarray(0, bin.resumed).sort();
      bin.p5Ms = quantileSorted(sorted, 0.05);
      bin.medianMs = quantileSorted(sorted, 0.5);
      bin.p95Ms = quantileSorted(sorted, 0.95);
      bin.maxMs = sorted[bin.resumed - 1]!;
      bin.maxCycle = cycles.cycle[maxAt]!;
      bin.maxPhase = cycles.observedPhase[maxAt]!;
    }
    bins.push(bin);
  }
  return { perBin, bins };
}
