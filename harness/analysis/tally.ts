// One pass over an analysis's finished cycles: the counts, samples and tallies the summary reports about them.
import type { Violation } from '../journal/events.js';
import type { CycleTable, Summary } from './summary.js';

export type CycleTally = Pick<Summary, 'tornCheckpoint' | 'noncePreserved'> & {
  resumed: number;
  failed: number;
  /** Downtime and lost work of the resumed (ok) cycles, in cycle order. */
  downtimes: number[];
  lost: number[];
};

/** Outcomes, downtime and lost work of resumed cycles, torn-write and nonce tallies; `violations` by row (rows with any). */
export function tallyCycles(t: CycleTable, violations: ReadonlyMap<number, readonly Violation[]>): CycleTally {
  const out: CycleTally = {
    resumed: 0,
    failed: 0,
    downtimes: [],
    lost: [],
    tornCheckpoint: { trials: 0, previousRestored: 0 },
    noncePreserved: { trials: 0, preserved: 0 },
  };
  for (let i = 0; i < t.length; i++) {
    const ok = t.outcome[i] === 'ok';
    const downtime = t.downtimeMs[i]!;
    const resumedAtAll = !Number.isNaN(downtime);
    if (ok) {
      out.resumed++;
      if (resumedAtAll) out.downtimes.push(downtime);
      if (!Number.isNaN(t.lostSteps[i]!)) out.lost.push(t.lostSteps[i]!);
    } else if (t.outcome[i] === 'fail') out.failed++;
    if (t.observedPhase[i] === 'checkpoint') {
      out.tornCheckpoint.trials++;
      if (ok) out.tornCheckpoint.previousRestored++;
    }
    if (resumedAtAll) {
      out.noncePreserved.trials++;
      if (!violations.get(i)?.some((v) => v.code === 'nonce')) out.noncePreserved.preserved++;
    }
  }
  return out;
}
