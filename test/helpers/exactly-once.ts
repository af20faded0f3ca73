// Whether a run's journal judged each (session, cycle) it planned exactly once (issue 36's done-when for --resume of a
// run of several sessions): every outcome counted by its session and cycle id, none missing, none doubled, none foreign.
import type { JournalEvent } from '../../harness/journal/events.js';
import { cycleIds } from '../../harness/scenario/shard.js';

/** Each planned (session, cycle) judged other than once, and each judged one not planned, as one line each. */
export function exactlyOnceIssues(events: readonly JournalEvent[]): string[] {
  const start = events.find((e) => e.type === 'run-start');
  if (start?.type !== 'run-start') return ['no run-start'];
  const sessions = (start.scenario as { sessions?: number }).sessions ?? 1; // journals from before sessions: one
  const planned = cycleIds(start.scenario.cycles, start.shard);
  const judged = new Map<string, number>();
  for (const e of events)
    if (e.type === 'cycle')
      judged.set(`${e.session ?? 0}:${e.cycle}`, (judged.get(`${e.session ?? 0}:${e.cycle}`) ?? 0) + 1);
  const issues: string[] = [];
  for (let s = 0; s < sessions; s++)
    for (const c of planned) {
      const n = judged.get(`${s}:${c}`) ?? 0;
      judged.delete(`${s}:${c}`);
      if (n !== 1) issues.push(`session ${s} cycle ${c}: judged ${n} times`);
    }
  for (const [key, n] of judged) issues.push(`session:cycle ${key}: judged ${n} times, never planned`);
  return issues;
}
