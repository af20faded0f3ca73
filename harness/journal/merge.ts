// Merge journals of several runs (shards of one soak, or several nights) into one journal whose analysis equals
// the analysis of the union of their cycles (runs of several sessions at once too: each event keeps its session, and
// every source must have run as many). Pure: a plan from each source's run-start and cycle ids, then each
// event mapped on its own, so `soak merge` streams journals of any size (two passes, never all events in memory).
import { InputError } from '../core/errors.js';
import { machineLabel } from '../core/environment.js';
import { plannedCycles } from '../scenario/shard.js';
import type { Scenario } from '../scenario/scenario.js';
import type { EventType } from './codec.js';
import type { JournalEvent, RunStartEvent, SourceRun } from './events.js';
import { constituents, overlaps, type MergeInput } from './merge-overlap.js';
import { sessionCycleKey } from './session-key.js';

export type { MergeInput } from './merge-overlap.js';

export interface MergePlan {
  /** The merged run-start: the first source's, with mergedFrom and the total cycle count. */
  start: RunStartEvent;
  /** Added to each source's cycle ids (all 0 when the sources' ids are disjoint, as shards' are). */
  shifts: number[];
}

/** How to merge: `force` merges sources that overlap, recording why in the merged run-start (`forcedOverlap`). */
export interface MergeOptions {
  force?: boolean;
}

/**
 * What the plan needs of one source, gathered from its events as `forEach` hands them over (streamed from a journal
 * file by `soak merge`, from an array in tests).
 */
export function mergeInput(
  source: string,
  forEach: (onEvent: (e: JournalEvent) => void) => void,
  realPath?: string,
): MergeInput {
  let start: RunStartEvent | undefined;
  let status: SourceRun['status'] = 'unknown';
  let store: SourceRun['store'];
  const cycleIds = new Set<number>();
  const pairs = new Set<number>(); // sessionCycleKey: each session runs the same ids
  forEach((e) => {
    if (e.type === 'run-start') start ??= e;
    else if (e.type === 'cycle-start') {
      cycleIds.add(e.cycle);
      pairs.add(sessionCycleKey(e.session, e.cycle));
    } else if (e.type === 'run-end') [status, store] = [e.status, e.store];
  });
  return {
    start,
    cycleIds,
    ...(pairs.size !== cycleIds.size ? { sessionCycles: pairs.size } : {}),
    source,
    status,
    ...(store === undefined ? {} : { store }),
    ...(realPath === undefined ? {} : { realPath }),
  };
}

/**
 * What a merge does with each event type: a cycle's event goes in (its cycle id shifted); the run's own frame
 * (run-start, run-resume, run-end) is replaced by the merged one. A Record over every type, so a new event type does
 * not compile until it is placed here (a dropped 'fault' once made merged freeze and power-loss cycles plain kills).
 */
const MERGED_AS: Record<EventType, 'cycle' | 'frame'> = {
  'run-start': 'frame',
  'run-resume': 'frame',
  'run-end': 'frame',
  'machine-load': 'cycle',
  'host-start': 'cycle',
  'kill-list': 'cycle',
  boot: 'cycle',
  checkpoint: 'cycle',
  'cycle-start': 'cycle',
  kill: 'cycle',
  fault: 'cycle',
  'host-crash': 'cycle',
  'checkpoint-storm': 'cycle',
  'memory-pressure': 'cycle',
  observation: 'cycle',
  restore: 'cycle',
  cycle: 'cycle',
  'target-info': 'cycle',
  effects: 'cycle',
  'guest-state': 'cycle',
};

/**
 * Shards keep their (disjoint) cycle ids; otherwise ids are offset so no two runs share one: each source is shifted
 * past the previous sources' largest id or declared cycle count, whichever is more. Overlapping sources (overlaps())
 * are refused with an InputError naming both, or with `force` merged and recorded in run-start's forcedOverlap.
 */
export function planMerge(inputs: readonly MergeInput[], mergedRunId: string, opts: MergeOptions = {}): MergePlan {
  if (inputs.length === 0) throw new InputError('merge: no run folder given');
  const starts = inputs.map(({ start, source }) => {
    if (!start) throw new InputError(`merge: ${source} has no run-start event`);
    return start;
  });
  refuseMixedSessions(inputs, starts);
  // a merge of a forced merge stays marked as one
  const forced = [...starts.flatMap((s) => s.forcedOverlap ?? []), ...overlaps(inputs, starts, opts.force === true)];
  const seen = new Set<number>();
  let disjoint = true;
  for (const { cycleIds } of inputs) {
    for (const id of cycleIds) {
      if (seen.has(id)) disjoint = false;
      seen.add(id);
    }
  }
  const shifts: number[] = [];
  let offset = 0;
  let total = 0;
  let widest = 0;
  for (const [i, { cycleIds }] of inputs.entries()) {
    shifts.push(disjoint ? 0 : offset);
    let largest = starts[i]!.scenario.cycles;
    for (const id of cycleIds) if (id > largest) largest = id; // a loop: a million ids do not fit in a call's arguments
    offset += Math.max(0, largest);
    total += starts[i]!.scenario.cycles;
    widest = Math.max(widest, starts[i]!.scenario.cycles);
  }
  const first = starts[0]!;
  const base: RunStartEvent = { ...first };
  delete base.shard;
  delete base.forcedOverlap;
  const cycles = disjoint ? widest : total;
  return {
    start: {
      ...base,
      runId: mergedRunId,
      // one source stopped when decided: the union's length depended on the data, so it is judged the same way
      scenario: {
        ...first.scenario,
        cycles,
        ...(starts.some((s) => s.scenario.untilDecided) ? { untilDecided: true } : {}),
      },
      mergedFrom: starts.flatMap(constituents), // a merge of merges still names every run it holds
      sources: inputs.flatMap((input, i) => sourceRuns(input, starts[i]!, shifts[i]!)),
      ...(forced.length > 0 ? { forcedOverlap: forced } : {}),
    },
    shifts,
  };
}

/** Sessions at once a run-start ran (issue 36; a journal from before sessions: one). */
const sessionsOf = (start: RunStartEvent): number => (start.scenario as Partial<Scenario>).sessions ?? 1;

/**
 * Sources of a merge run the same number of sessions at once: each event keeps its `session`, so a session index of
 * one source is the same session's in the merged run only when every source has that many (their (session, cycle)
 * pairs are then disjoint as their cycle ids are, shards or shifted).
 */
function refuseMixedSessions(inputs: readonly MergeInput[], starts: readonly RunStartEvent[]): void {
  const n = sessionsOf(starts[0]!);
  const odd = starts.findIndex((s) => sessionsOf(s) !== n);
  if (odd < 0) return;
  const [a, b] = [inputs[0]!.source, inputs[odd]!.source];
  throw new InputError(
    `merge: ${a} ran ${n} session(s) at once, ${b} ran ${sessionsOf(starts[odd]!)}: only runs of the same number of sessions merge`,
  );
}

/** The source runs one input stands for (a merged input: its own sources, their cycle ranges shifted). */
function sourceRuns(input: MergeInput, start: RunStartEvent, shift: number): SourceRun[] {
  const at = (c: number | null): number | null => (c === null ? null : c + shift);
  if (start.sources)
    return start.sources.map((s) => ({ ...s, firstCycle: at(s.firstCycle), lastCycle: at(s.lastCycle) }));
  let first: number | null = null;
  let last: number | null = null;
  for (const id of input.cycleIds) {
    if (first === null || id < first) first = id;
    if (last === null || id > last) last = id;
  }
  return [
    {
      runId: start.runId,
      machine: machineLabel(start.environment),
      seed: start.scenario.seed,
      ...(start.shard ? { shard: start.shard } : {}),
      // each of its sessions ran every cycle: planned and run count (session, cycle) pairs, as its own analysis does
      plannedCycles: plannedCycles(start.scenario.cycles, start.shard) * sessionsOf(start),
      cycles: input.sessionCycles ?? input.cycleIds.size,
      firstCycle: at(first),
      lastCycle: at(last),
      status: input.status ?? 'unknown',
      ...(input.store === undefined ? {} : { store: input.store }),
    },
  ];
}

/** One source event as it goes into the merged journal (its cycle id shifted), or null when it stays out. */
export function mergeEvent(e: JournalEvent, shift: number): JournalEvent | null {
  if (MERGED_AS[e.type] !== 'cycle') return null;
  return { ...e, cycle: (e as { cycle: number }).cycle + shift } as JournalEvent;
}

/** In-memory merge of whole journals (tests, small runs): the planned run-start, then every source's cycle events. */
export function mergeJournals(
  sources: ReadonlyArray<{ events: JournalEvent[]; source: string }>,
  mergedRunId: string,
  opts: MergeOptions = {},
): JournalEvent[] {
  const plan = planMerge(
    sources.map(({ events, source }) => mergeInput(source, (onEvent) => events.forEach(onEvent))),
    mergedRunId,
    opts,
  );
  const out: JournalEvent[] = [plan.start];
  sources.forEach(({ events }, i) => {
    for (const e of events) {
      const m = mergeEvent(e, plan.shifts[i]!);
      if (m) out.push(m);
    }
  });
  return out;
}
