// How a run's outcomes read beyond ok and fail: its indeterminate cycles by cause, its adapter faults, and how its
// runners ended.
import { ADAPTER_FAULT_PREFIX } from '../core/errors.js';
import type { CauseCode, IndeterminateCause, RunEndEvent, RunStartEvent, Violation } from '../journal/events.js';
import type { RowOrder } from './columns.js';
import { missingShards, plannedCycles } from '../scenario/shard.js';
import type { Scenario } from '../scenario/scenario.js';
import { summarizeMachineLoad, type LoadColumns } from './machine-load.js';
import type { Summary } from './summary.js';

/** The summary's indeterminate block: counts by cause, cycles with no outcome as 'unfinished'. */
export function indeterminateOf(
  causes: Partial<Record<CauseCode, number>>,
  unfinished: number,
  samples: string[],
): NonNullable<Summary['indeterminate']> {
  return { causes: unfinished > 0 ? { ...causes, unfinished } : { ...causes }, samples };
}

/** How the runs ended: the first one that did not complete (a missing run-end: 'unknown'), else complete. */
export function runStatusOf(ends: readonly (RunEndEvent | null)[]): NonNullable<Summary['runStatus']> {
  for (const e of ends) {
    if (e === null) return { status: 'unknown' };
    if (e.status !== 'complete')
      return e.reason === undefined ? { status: e.status } : { status: e.status, reason: e.reason };
  }
  return { status: 'complete' };
}

/**
 * What a summary says of where its run came from: cycles planned (a shard's share; a merge sums its sources), the
 * source runs of a merge and how the first of them that did not complete ended, a merge forced over overlapping
 * sources, and the machine load it ran under.
 */
export function runFacts(
  start: RunStartEvent,
  loads: LoadColumns,
  ends: readonly (RunEndEvent | null)[],
): Pick<Summary, 'plannedCycles' | 'missingShards' | 'sources' | 'runStatus' | 'machineLoad' | 'forcedOverlap'> {
  const sources = start.sources;
  const machineLoad = summarizeMachineLoad(loads, start.environment.cores);
  const unfinished = sources?.find((s) => s.status !== 'complete');
  const decided = [...ends].reverse().find((e) => e?.decided !== undefined)?.decided;
  const sequential = {
    ...(start.scenario.untilDecided === true ? { untilDecided: true } : {}),
    ...(decided ? { decided } : {}),
  };
  // shards of the soak no source stands for: their cycles were planned and never ran (a shard that never reported)
  const missing = sources ? missingShards(sources.flatMap((s) => (s.shard ? [s.shard] : []))) : [];
  const sessions = (start.scenario as Partial<Scenario>).sessions ?? 1; // every session runs the cycles (older: one)
  return {
    plannedCycles: sources
      ? sources.reduce((sum, s) => sum + s.plannedCycles, 0) +
        missing.reduce((sum, m) => sum + plannedCycles(start.scenario.cycles, m) * sessions, 0)
      : plannedCycles(start.scenario.cycles, start.shard) * sessions,
    ...(missing.length > 0 ? { missingShards: missing } : {}),
    // a merge's journal has no run-end: its sources say how their runners ended (older merges: complete)
    runStatus: {
      ...(sources
        ? { status: unfinished?.status ?? 'complete' }
        : start.mergedFrom
          ? { status: 'complete' as const }
          : runStatusOf(ends)),
      ...sequential,
    },
    ...(sources ? { sources } : {}),
    ...(start.forcedOverlap ? { forcedOverlap: start.forcedOverlap } : {}),
    ...(machineLoad ? { machineLoad } : {}),
  };
}

/** Up to 10 '<code> in cycle <n>: <message>' lines of the kept outcomes' causes (by append index), in row order. */
export function causeSamples(
  causesAt: ReadonlyMap<number, IndeterminateCause>,
  order: RowOrder,
  cycleAt: (appended: number) => number,
): string[] {
  const rows = order === null ? [...causesAt.keys()] : Array.from(order).filter((a) => causesAt.has(a));
  return rows.slice(0, 10).map((appended) => {
    const c = causesAt.get(appended)!;
    return `${c.code} in cycle ${cycleAt(appended)}: ${c.message}`;
  });
}

/**
 * The run's adapter faults, apart from the checker's violations: each cycle failed with `adapter-fault`, and each
 * runner that ended on one (a boot: run-end aborted, its reason the AdapterError's message); the first 10 messages.
 */
export function adapterFaultsOf(
  violations: readonly Violation[],
  ends: readonly (RunEndEvent | null)[],
): NonNullable<Summary['adapterFaults']> {
  const messages = violations.filter((v) => v.code === 'adapter-fault').map((v) => v.message);
  for (const e of ends)
    if (e?.status === 'aborted' && e.reason?.startsWith(ADAPTER_FAULT_PREFIX) === true) messages.push(e.reason);
  return { count: messages.length, samples: messages.slice(0, 10) };
}
