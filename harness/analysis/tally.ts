// One pass over an analysis's finished cycles: the counts, samples and tallies the summary reports about them.
import type { CauseCode, Violation } from '../journal/events.js';
import type { CycleTable, Summary } from './summary.js';

export type CycleTally = Pick<Summary, 'tornCheckpoint' | 'noncePreserved'> & {
  resumed: number;
  failed: number;
  /** Kill-and-resume trials (gate 6): judged cycles less thawed freezes, which killed nothing. */
  killResume: { successes: number; trials: number };
  /** Cycles journaled indeterminate, and how many had each cause. */
  indeterminate: number;
  causes: Partial<Record<CauseCode, number>>;
  /** Downtime and lost work of the resumed (ok) cycles, in cycle order. */
  downtimes: number[];
  lost: number[];
};

/** Outcomes (indeterminate ones counted apart, by cause, and in no trial; thawed freezes in no kill-resume trial), downtime and lost work of resumed cycles, torn-write and nonce tallies; `violations` by row (rows with any). */
export function tallyCycles(
  t: CycleTable,
  violations: ReadonlyMap<number, readonly Violation[]>,
  thawed: (row: number) => boolean = () => false,
): CycleTally {
  const out: CycleTally = {
    resumed: 0,
    failed: 0,
    killResume: { successes: 0, trials: 0 },
    indeterminate: 0,
    causes: {},
    downtimes: [],
    lost: [],
    tornCheckpoint: { trials: 0, previousRestored: 0 },
    noncePreserved: { trials: 0, preserved: 0 },
  };
  for (let i = 0; i < t.length; i++) {
    if (t.outcome[i] === 'indeterminate') {
      // Not judged: no claim about the system under test, so in no trial count (Jepsen's :info).
      out.indeterminate++;
      const code = t.cause[i] || 'host-exited';
      out.causes[code] = (out.causes[code] ?? 0) + 1;
      continue;
    }
    const ok = t.outcome[i] === 'ok';
    if (thawed(i)) {
      // a freeze the session carried on from: an outcome, and its own durability row, but no kill-and-resume trial
      if (ok) out.resumed++;
      else out.failed++;
      continue;
    }
    out.killResume.trials++;
    if (ok) out.killResume.successes++;
    const downtime = t.downtimeMs[i]!;
    const resumedAtAll = !Number.isNaN(downtime);
    if (ok) {
      out.resumed++;
      if (resumedAtAll) out.downtimes.push(downtime);
      if (!Number.isNaN(t.lostSteps[i]!)) out.lost.push(t.lostSteps[i]!);
    } else if (t.outcome[i] === 'fail') out.failed++;
    if (t.observedPhase[i] === 'checkpoint') {
      out.tornCheckpoint.trials++;
      if (ok || (resumedAtAll && onlyStuckCheckpoint(violations.get(i)))) out.tornCheckpoint.previousRestored++;
    }
    if (resumedAtAll) {
      out.noncePreserved.trials++;
      if (!violations.get(i)?.some((v) => v.code === 'nonce')) out.noncePreserved.preserved++;
    }
  }
  return out;
}

/**
 * A resumed cycle failed only because the checkpoint its kill cut was stuck (session/checkpoint-watch.ts): its resume was
 * checked and found nothing, so for torn-checkpoint safety it counts as a safe torn write.
 */
function onlyStuckCheckpoint(vs: readonly Violation[] | undefined): boolean {
  return vs !== undefined && vs.length > 0 && vs.every((v) => v.code === 'checkpoint-stuck');
}
