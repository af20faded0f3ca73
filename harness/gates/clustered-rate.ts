// A rate gate of a run of several sessions at once (issue 36): its trials are clustered by session, so the pooled
// rate is judged on the Wilson interval at its effective n (stats/cluster.ts, Korn & Graubard 1998), not on the n of
// independent trials it is not, and that n (rounded down) is the gate's n, so a gate's minN counts effective trials;
// the note says what the clustering did. A run of one session is judged as before.
import type { Summary } from '../analysis/summary.js';
import { clusteredWilson } from '../stats/cluster.js';
import type { Interval } from '../stats/wilson.js';
import type { GateEvidence } from './types.js';

/** What the metric reads from one summary (metrics.ts): a rate's reading has its successes and trials. */
type Read = (s: Partial<Summary>) => { kind: string; successes?: number; trials?: number };

/** The pooled rate's interval and note when the evidence holds several sessions, else null. */
export function clusteredRate(
  evidence: GateEvidence,
  read: Read,
  level: number,
): { interval: Interval | null; effectiveN: number; note: string } | null {
  const sessions = evidence.sessions ?? [];
  if (sessions.length < 2) return null;
  const counts = sessions
    .map(read)
    .flatMap((r) => (r.kind === 'rate' ? [{ successes: r.successes ?? 0, trials: r.trials ?? 0 }] : []));
  const c = clusteredWilson(counts, level);
  const n = counts.reduce((s, x) => s + x.trials, 0);
  const deff =
    c.designEffect === 1 ? 'no spread between sessions beyond chance' : `design effect ${c.designEffect.toFixed(2)}`;
  const note = `clustered by session (${c.clusters} with trials; ${deff}): judged at effective n ${Math.floor(c.effectiveN)} of ${n} (Korn & Graubard 1998)`;
  return { interval: c.interval, effectiveN: Math.floor(c.effectiveN), note };
}
