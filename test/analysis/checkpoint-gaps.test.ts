// Committed-but-unjournaled checkpoints are counted from the gaps in sequence numbers, per store, so the report's
// checkpoint count is the store's (soak store stats).
import { describe, expect, it } from 'vitest';
import { unjournaledCheckpoints } from '../../harness/analysis/checkpoint-gaps.js';
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
