// Merge journals of several runs (shards of one soak, or several nights) into one journal whose analysis equals
// the analysis of the union of their cycles. Pure: events in, events out.
import { InputError } from './errors.js';
import type { JournalEvent, RunStartEvent } from './events.js';

export interface MergeSource {
  events: JournalEvent[];
  source: string;
}

const CYCLE_KEYED = new Set(['host-start', 'boot', 'checkpoint', 'cycle-start', 'kill', 'restore', 'cycle', 'target-info']);

/**
 * Merged events: one run-start (the first source's, with mergedFrom and the total cycle count), then every source's
 * cycle events. Shards keep their (disjoint) cycle ids; otherwise ids are offset so no two runs share one.
 */
export function mergeJournals(sources: MergeSource[], mergedRunId: string): JournalEvent[] {
  if (sources.length === 0) throw new InputError('merge: no run folder given');
  const starts = sources.map(({ events, source }) => {
    const s = events.find((e): e is RunStartEvent => e.type === 'run-start');
    if (!s) throw new InputError(`merge: ${source} has no run-start event`);
    return s;
  });
  const idsOf = (events: JournalEvent[]): number[] => [...new Set(events.filter((e) => e.type === 'cycle-start').map((e) => (e as { cycle: number }).cycle))];
  const all = sources.flatMap((s) => idsOf(s.events));
  const disjoint = new Set(all).size === all.length;
  const out: JournalEvent[] = [];
  const first = starts[0]!;
  let offset = 0;
  let total = 0;
  for (const [i, { events }] of sources.entries()) {
    const shift = disjoint ? 0 : offset;
    for (const e of events) {
      if (!CYCLE_KEYED.has(e.type)) continue;
      out.push({ ...e, cycle: (e as { cycle: number }).cycle + shift } as JournalEvent);
    }
    const ids = idsOf(events);
    offset += Math.max(0, ...ids, starts[i]!.scenario.cycles);
    total += disjoint ? 0 : starts[i]!.scenario.cycles;
  }
  const cycles = disjoint ? Math.max(...starts.map((s) => s.scenario.cycles)) : total;
  const { shard: _shard, ...base } = first;
  const start: RunStartEvent = { ...base, runId: mergedRunId, scenario: { ...first.scenario, cycles }, mergedFrom: starts.map((s) => s.runId) };
  return [start, ...out];
}
