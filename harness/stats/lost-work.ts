// Lost work per resumed cycle (steps between the restored checkpoint and the kill): cycles over a limit.

/** Cycles that lost more than `limit` steps (e.g. more than one checkpoint interval). */
export function countLostBeyond(lostSteps: readonly (number | null)[], limit: number): number {
  let count = 0;
  for (const x of lostSteps) if (x !== null && x > limit) count++;
  return count;
}
