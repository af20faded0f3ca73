// Checkpoints a store committed that the journal never recorded: gaps in the sequence numbers of journaled checkpoints.
// A host SIGKILLed between renaming a manifest into place and reporting it leaves a committed checkpoint the runner
// never heard of (it is restored from all the same); `soak store stats` counts it, the journal cannot know its bytes.
// When every run's run-end recorded its store (as `soak store stats` counts it), those are the report's figures.
import type { RunEndEvent, RunStartEvent } from '../journal/events.js';
import { sumInOrder } from './columns.js';
import type { CheckpointTable, Summary } from './summary.js';

/**
 * How many sequence numbers are missing from `seq` (journal order). Each store numbers its checkpoints 1, 2, 3...;
 * a number below the one before starts the next run's store (merged shards). A checkpoint committed after a run's last
 * journaled one leaves no gap, so this is a lower bound.
 */
export function unjournaledCheckpoints(seq: ArrayLike<number>): number {
  let missing = 0;
  let prev = 0;
  for (let i = 0; i < seq.length; i++) {
    const s = seq[i]!;
    if (s > prev) missing += s - prev - 1;
    else if (s < prev) missing += s - 1; // the next store starts at 1
    prev = s;
  }
  return missing;
}

/**
 * The summary's dedup figures. One definition: the checkpoints the run's stores committed (manifest in place) and their
 * bytes, as `soak store stats` counts them, taken from each run's run-end (`counted: 'store'`). When a run has none
 * (older journals, a merge, a runner that died), the journaled checkpoints and their bytes (summed in journal order),
 * with the committed count as a lower bound from sequence gaps (`counted: 'journal'`).
 */
export function dedupOf(
  c: CheckpointTable,
  ends: readonly (Pick<RunEndEvent, 'store'> | null)[] = [],
): Summary['dedup'] {
  const stores = ends.map((e) => e?.store);
  if (stores.length > 0 && stores.every((s) => s !== undefined)) {
    const sum = (k: 'checkpoints' | 'logicalBytes' | 'storedBytes'): number => stores.reduce((t, s) => t + s[k], 0);
    const [checkpoints, logicalBytes, storedBytes] = [sum('checkpoints'), sum('logicalBytes'), sum('storedBytes')];
    const ratio = storedBytes > 0 ? logicalBytes / storedBytes : null;
    return {
      checkpoints,
      logicalBytes,
      storedBytes,
      ratio,
      committed: checkpoints,
      journaled: c.length,
      counted: 'store',
    };
  }
  const logicalBytes = sumInOrder(c.logicalBytes);
  const storedBytes = sumInOrder(c.storedBytes);
  const ratio = storedBytes > 0 ? logicalBytes / storedBytes : null;
  return {
    checkpoints: c.length,
    logicalBytes,
    storedBytes,
    ratio,
    committed: c.length + unjournaledCheckpoints(c.seq),
    journaled: c.length,
    counted: 'journal',
  };
}

/**
 * What holds each run's store tally: its run-end; for a merged journal (one run with sources, no run-end of its own),
 * its sources, each carrying its own run-end's tally, so a merge states the count its shards' stores state.
 */
export function storeRecords(
  start: RunStartEvent,
  ends: readonly (RunEndEvent | null)[],
): readonly (Pick<RunEndEvent, 'store'> | null)[] {
  const merged = ends.length === 1 && ends[0] === null && (start.sources?.length ?? 0) > 0;
  return merged ? start.sources! : ends;
}
