// Analyse journal events held in memory (tests, benchmarks): one run's, or several runs' as one sample.
import type { JournalEvent } from '../journal/events.js';
import { RunAccumulator } from './accumulator.js';
import type { RunAnalysis } from './summary.js';

/**
 * Analyse one run's events, or several runs (shards, nights) as one sample: cycles are keyed per run, so
 * merged statistics equal those of a single run over the union. Scenario, date and environment come from the first run.
 */
export function analyze(
  firstEvents: JournalEvent[],
  source = 'journal',
  more: { events: JournalEvent[]; source: string }[] = [],
): RunAnalysis {
  const acc = new RunAccumulator();
  const runs = [{ events: firstEvents, source }, ...more];
  runs.forEach((r, i) => {
    if (i > 0) acc.nextRun(runs[i - 1]!.source);
    for (const e of r.events) acc.add(e);
  });
  return acc.finish(runs.at(-1)!.source);
}
