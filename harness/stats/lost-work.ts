// Lost work per resumed cycle (steps between the restored checkpoint and the kill): summary, and cycles over a limit.

/** Lost-work summary; max and mean null when nothing was measured. Same shape as Summary.lostSteps. */
export interface LostWorkSummary {
  n: number;
  max: number | null;
  mean: number | null;
}

/** Summarise lost steps per cycle, skipping cycles where it was not measured (null). */
export function summarizeLostWork(lostSteps: readonly (number | null)[]): LostWorkSummary {
  let n = 0;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const x of lostSteps) {
    if (x === null) continue;
    n++;
    sum += x;
    if (x > max) max = x;
  }
  return n === 0 ? { n: 0, max: null, mean: null } : { n, max, mean: sum / n };
}

/** Cycles that lost more than `limit` steps (e.g. more than one checkpoint interval). */
export function countLostBeyond(lostSteps: readonly (number | null)[], limit: number): number {
  let count = 0;
  for (const x of lostSteps) if (x !== null && x > limit) count++;
  return count;
}
