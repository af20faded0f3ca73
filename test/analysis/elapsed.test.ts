// summary.elapsedMs, the run's span the JUnit suite's time reports: a run's run-end time; a merge's latest machine-load
// sample (its longest source); the same through the fast path, the JSON.parse path and a fold split over threads.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { fixturePath } from '../helpers/paths.js';

/** The largest `t` of the fixture journal's events of `types`. */
function latest(name: string, types: string[]): number {
  const events = readFileSync(fixturePath('journals', name, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JournalEvent);
  return Math.max(...events.filter((e) => types.includes(e.type)).map((e) => e.t));
}

const PATHS = [
  { fastPath: true, parallelFromBytes: 64 << 20, threads: 1 },
  { fastPath: false, parallelFromBytes: 64 << 20, threads: 1 },
  { fastPath: true, parallelFromBytes: 1, threads: 3 },
];

describe('summary.elapsedMs', () => {
  it.each(PATHS)('is the run-end time of a run, the last load sample of a merge (%o)', async (options) => {
    const one = await loadRuns([fixturePath('journals', 'process-default')], options);
    expect(one.analysis.summary.elapsedMs).toBe(latest('process-default', ['run-end']));
    expect(one.analysis.summary.elapsedMs).toBe(4539.507);
    const merged = await loadRuns([fixturePath('journals', 'process-merged-sources')], options);
    expect(merged.analysis.summary.elapsedMs).toBe(latest('process-merged-sources', ['machine-load']));
    // negative control: a merge without load samples (older journals) has none, rather than a made-up span
    const old = await loadRuns([fixturePath('journals', 'process-merged-shards')], options);
    expect(old.analysis.summary.elapsedMs).toBeUndefined();
  });

  it('of several runs judged as one sample is the longest', async () => {
    const both = await loadRuns([
      fixturePath('journals', 'process-default'),
      fixturePath('journals', 'process-torn-checkpoint'),
    ]);
    expect(both.analysis.summary.elapsedMs).toBe(latest('process-torn-checkpoint', ['run-end']));
  });
});
