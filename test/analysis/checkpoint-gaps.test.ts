// Committed-but-unjournaled checkpoints are counted from the gaps in sequence numbers, per store, so the report's
// checkpoint count is the store's (soak store stats); a run-end that recorded its store gives the exact count and bytes.
import { describe, expect, it } from 'vitest';
import { dedupOf, storeRecords, unjournaledCheckpoints } from '../../harness/analysis/checkpoint-gaps.js';
import type { RunEndEvent, RunStartEvent } from '../../harness/journal/events.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { fixturePath } from '../helpers/paths.js';

describe('unjournaledCheckpoints', () => {
  it('counts the gaps in each store, a drop in seq starting the next store', () => {
    expect(unjournaledCheckpoints([])).toBe(0);
    expect(unjournaledCheckpoints([1, 2, 3])).toBe(0);
    expect(unjournaledCheckpoints([1, 3, 4, 7])).toBe(3);
    expect(unjournaledCheckpoints([2, 3])).toBe(1);
    expect(unjournaledCheckpoints([1, 2, 1, 3, 4])).toBe(1); // second shard's store misses its 2
  });

  it('the resumed fixture journaled 128 checkpoints of the 131 its store committed (29, 61, 128 never reported)', async () => {
    const { analysis } = await loadRuns([fixturePath('journals', 'process-resumed')]);
    expect(analysis.summary.dedup.checkpoints).toBe(128);
    expect(analysis.summary.dedup.committed).toBe(131);
  });
});

describe('dedupOf: one definition of the checkpoint count', () => {
  const table = (seq: number[]) => ({
    length: seq.length,
    seq: Float64Array.from(seq),
    pauseMs: new Float64Array(seq.length),
    writeMs: new Float64Array(seq.length),
    logicalBytes: Float64Array.from(seq, () => 1000),
    storedBytes: Float64Array.from(seq, () => 10),
  });
  const end = (store?: { checkpoints: number; logicalBytes: number; storedBytes: number }): RunEndEvent => ({
    schemaVersion: 1,
    t: 1,
    type: 'run-end',
    status: 'complete',
    cycles: 3,
    ...(store ? { store } : {}),
  });

  it('takes the stores the run-ends recorded (as soak store stats counts them), summed over runs', () => {
    const store = { checkpoints: 5, logicalBytes: 6000, storedBytes: 40 };
    // journaled 1, 2, 4: a host killed before reporting 3, and 5 committed as the last host was killed
    expect(dedupOf(table([1, 2, 4]), [end(store)])).toEqual({
      checkpoints: 5,
      logicalBytes: 6000,
      storedBytes: 40,
      ratio: 150,
      committed: 5,
      journaled: 3,
      counted: 'store',
    });
    expect(dedupOf(table([1, 2, 4, 1]), [end(store), end(store)]).checkpoints).toBe(10);
  });

  it('without a store in every run-end: the journal, with the committed count a lower bound (it misses the 5th)', () => {
    const d = dedupOf(table([1, 2, 4]), [end()]);
    expect(d).toEqual({
      checkpoints: 3,
      logicalBytes: 3000,
      storedBytes: 30,
      ratio: 100,
      committed: 4,
      journaled: 3,
      counted: 'journal',
    });
    expect(dedupOf(table([1, 2, 4]), [end({ checkpoints: 5, logicalBytes: 1, storedBytes: 1 }), null]).counted).toBe(
      'journal',
    );
  });

  it("a merged journal states the count its sources recorded; one source without it makes the count the journal's", () => {
    const tally = { checkpoints: 5, logicalBytes: 6000, storedBytes: 40 };
    const source = (store?: typeof tally) => ({
      runId: 'r',
      machine: 'm',
      seed: 1,
      plannedCycles: 3,
      cycles: 3,
      firstCycle: 1,
      lastCycle: 3,
      status: 'complete' as const,
      ...(store ? { store } : {}),
    });
    const merged = (sources: ReturnType<typeof source>[]) => ({ sources }) as unknown as RunStartEvent;
    const both = dedupOf(table([1, 2, 1, 2]), storeRecords(merged([source(tally), source(tally)]), [null]));
    expect([both.counted, both.checkpoints, both.storedBytes]).toEqual(['store', 10, 80]);
    const one = dedupOf(table([1, 2, 1, 2]), storeRecords(merged([source(tally), source()]), [null]));
    expect([one.counted, one.checkpoints]).toEqual(['journal', 4]);
    // a plain run keeps its own run-end, sources or not
    expect(storeRecords(merged([source(tally)]), [end()])).toEqual([end()]);
  });
});
