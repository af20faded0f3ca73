// Judging cycles from their journaled observations: analysis runs this build's checker again over what each cycle's
// checker looked at (the observation event, journaled just before the outcome), so a report states the verdicts of the
// checker it was built with, and says where they differ from the ones the runner journaled (as Jepsen checks the
// stored history). A cycle with no observation (the session never resumed) keeps its journaled outcome.
import { WorkloadModel } from '../check/workload.js';
import type { Outcome, Violation } from '../journal/events.js';
import type { ObservationFields } from '../journal/observation.js';
import {
  codesOf,
  keepOutsideFindings,
  recheckObservation,
  rejudges,
  sameVerdict,
  type RecheckedVerdict,
} from './recheck.js';
import type { RowOrder } from './columns.js';
import type { CycleTable, Summary } from './summary.js';

/** One thread's re-checked observations: bound to an outcome (by append index), or still waiting for it (by cycle). */
export interface RejudgeFold {
  bound: [number, RecheckedVerdict][];
  pending: [number, RecheckedVerdict][];
}

/** Pairs each observation with the next outcome of its cycle (a later observation of the same cycle replaces it). */
export class Rejudge {
  private model: WorkloadModel | null = null;
  private readonly pending = new Map<number, RecheckedVerdict>();
  private readonly bound = new Map<number, RecheckedVerdict>();

  /** A cycle's observation: re-checked now, kept for the next outcome of its key (its cycle, or session-key.ts's). */
  observed(obs: ObservationFields, key = obs.cycle): void {
    this.model ??= new WorkloadModel();
    this.pending.set(key, recheckObservation(obs, this.model));
  }

  /** Outcome number `appended` (its append index) of cycle `cycle` arrived. */
  outcome(cycle: number, appended: number): void {
    const v = this.pending.get(cycle);
    if (v === undefined) return;
    this.bound.set(appended, v);
    this.pending.delete(cycle);
  }

  /** The next run's events follow: an observation never pairs with another run's outcome. */
  nextRun(): void {
    this.pending.clear();
  }

  /** What was folded so far, to append to the fold of the part before it. */
  partial(): RejudgeFold {
    return { bound: [...this.bound], pending: [...this.pending] };
  }

  /**
   * Append the fold of the journal's next part, whose outcomes were appended at `offset` with cycle ids `cycles`: an
   * observation still waiting here pairs with that part's first outcome of its cycle, unless the part paired that one
   * with an observation of its own.
   */
  append(p: RejudgeFold, offset: number, cycles: Float64Array): void {
    const boundThere = new Set(p.bound.map(([i]) => i));
    for (const [cycle, v] of this.pending) {
      const i = cycles.indexOf(cycle);
      if (i < 0) continue;
      if (!boundThere.has(i)) this.bound.set(offset + i, v);
      this.pending.delete(cycle);
    }
    for (const [i, v] of p.bound) this.bound.set(offset + i, v);
    for (const [cycle, v] of p.pending) this.pending.set(cycle, v);
  }

  /**
   * The finished table's outcomes and violations replaced by the re-checked verdicts where they differ (`order`: the
   * append index of each row), and what the re-check found. Outcomes journaled indeterminate stay so (rejudges(),
   * the rule `soak check` follows too).
   */
  apply(
    t: CycleTable,
    order: RowOrder,
    violations: Map<number, readonly Violation[]>,
  ): { cycles: CycleTable; recheck: NonNullable<Summary['recheck']> } {
    const recheck: NonNullable<Summary['recheck']> = { rechecked: 0, agreed: 0, changed: 0, changedCycles: [] };
    let outcome: Outcome[] | null = null;
    let codes: string[] | null = null;
    for (let row = 0; row < t.length; row++) {
      const bound = this.bound.get(order === null ? row : order[row]!);
      const journaled = t.outcome[row]!;
      if (bound === undefined || !rejudges(journaled)) continue;
      const v = keepOutsideFindings(bound, violations.get(row) ?? []);
      recheck.rechecked++;
      if (sameVerdict({ outcome: journaled, codes: codesOf(violations.get(row) ?? []) }, v)) {
        recheck.agreed++;
        continue;
      }
      recheck.changed++;
      if (recheck.changedCycles.length < 20) recheck.changedCycles.push(t.cycle[row]!);
      outcome ??= [...t.outcome];
      codes ??= [...t.violations];
      outcome[row] = v.outcome;
      codes[row] = v.violations.map((x) => x.code).join(' ');
      if (v.violations.length > 0) violations.set(row, v.violations);
      else violations.delete(row);
    }
    const cycles = outcome === null ? t : { ...t, outcome, violations: codes ?? t.violations };
    return { cycles, recheck };
  }
}
