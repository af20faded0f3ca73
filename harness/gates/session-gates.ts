// A run of several sessions at once (issue 36) is judged pooled and in each session: a gate that a session fails on
// its own evidence fails the run, so one bad session cannot hide in a pooled rate. A session's fail counts when it
// cannot be a small sample's doing: a count that only grows (a violation), a solid fail, or a 95% interval wholly
// beyond the bar; a session's "not enough to pass" alone (its Wilson bound short of the bar at small n) does not.
import { holds } from './threshold.js';
import type { GateResult } from './types.js';

/** Whether session result `r` is a fail of the session itself, not of its sample size. */
function sessionFailed(r: GateResult): boolean {
  if (r.verdict !== 'fail') return false;
  if (r.solid || r.kind === 'count') return true;
  if (r.interval === null) return false;
  const [lo, hi] = r.interval;
  return !holds(lo, r.op, r.bound) && !holds(hi, r.op, r.bound) && !(lo <= r.bound && r.bound <= hi);
}

/** The pooled gates, each failed (with a note naming the sessions) where a session fails it on its own. */
export function judgedInEverySession(pooled: readonly GateResult[], each: readonly GateResult[][]): GateResult[] {
  return pooled.map((g, i) => {
    const failing = each.flatMap((gates, s) => (gates[i] !== undefined && sessionFailed(gates[i]) ? [s] : []));
    if (failing.length === 0) return g;
    const note = `fails in session ${failing.join(', ')} of ${each.length} on its own (a pooled figure cannot hide it)`;
    return { ...g, verdict: 'fail', solid: true, note: [g.note, note].filter(Boolean).join('; ') };
  });
}
