// The fold of part of one journal that one thread hands to the next (analysis/parallel.ts), as RunAccumulator appends it.
import type { CheckpointTable, CycleRow } from './summary.js';
import type { Encoded } from './tables.js';
import type { RejudgeFold } from './rejudge.js';
import type { LoadColumns } from './machine-load.js';
import type { FreezeCycles } from './freeze-cycles.js';
import type { EffectsFold } from './effects-tally.js';
import type { GuestStateFold } from './guest-state-tally.js';
import type { HostCrashFold } from './host-crash-tally.js';
import type { CheckpointStormFold } from './checkpoint-storm-tally.js';
import type { MemoryPressureFold } from './memory-pressure-tally.js';
import type { WorkFold } from './work-tally.js';
import type { IndeterminateCause, RunEndEvent, RunStartEvent, Violation } from '../journal/events.js';

/**
 * What one thread folded from a part of one journal (byte ranges, parallel.ts), to append after the parts
 * before it: rows as journaled, cycle ids as keys. Structured-cloneable; its typed arrays can be transferred.
 */
export interface PartialFold {
  start: RunStartEvent | null;
  liveTarget: Record<string, string | number | boolean>;
  /** Cycle outcomes in journal order (not yet ordered by cycle, repeats not yet dropped). */
  outcomes: Encoded<CycleRow>;
  /** Violations of the outcomes that have any: [row, violations]. */
  violations: [number, readonly Violation[]][];
  /** Causes of the outcomes that have one: [row, cause]. */
  causes: [number, IndeterminateCause][];
  /** The last run-end of this part (null: none in it). */
  end: RunEndEvent | null;
  startedCycles: Float64Array;
  checkpoints: CheckpointTable;
  boots: Float64Array;
  /** How many of `boots` are boot samples (scenario bootSamples), not session boots. */
  bootSamples: number;
  restores: Float64Array;
  /** Restores by where the target read the checkpoint (absent: none said). */
  restoreSources?: Record<string, number>;
  rejudge: RejudgeFold;
  loads: LoadColumns;
  /** Cycle ids of freezes and kills (freeze-cycles.ts: a thawed freeze is no kill-and-resume trial). */
  freezes: ReturnType<FreezeCycles['partial']>;
  /** Its effects events summed (absent: folds from before issue 34). */
  effects?: EffectsFold;
  /** Its guest-state events counted (absent: folds from before issue 33). */
  guestState?: GuestStateFold;
  /** Its host-crash events counted (absent: folds from before issue 36's host crashes). */
  hostCrashes?: HostCrashFold;
  /** Its checkpoint-storm events counted (absent: folds from before issue 36's checkpoint storms). */
  checkpointStorms?: CheckpointStormFold;
  /** Its memory-pressure events counted (absent: folds from before issue 36's squeezes). */
  memoryPressure?: MemoryPressureFold;
  /** The coding workload's accounts at resumes (absent: folds from before issue 37's workload). */
  work?: WorkFold;
  /** The latest run-end or machine-load time in this part (0: none). */
  lastT: number;
}
