// Cycles whose session got stuck while its host answered (issue 30): a failed resume (session-hung, never resumed) and
// a stuck checkpoint (checkpoint-stuck: killed during that checkpoint, resumed) are failures of kill-and-resume trials
// and violations (gates 6 and 2). A stuck checkpoint whose resume found nothing else still restored the previous
// checkpoint: a safe torn write for gate 8; with another violation, or without a resume, it is not.
import { describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import type { EventInput, JournalEvent, KillPhase, Violation } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { journalEvent, runStartEvent } from '../helpers/journal-events.js';

const scenario = parseScenario('name: stuck\ncycles: 5\n', 'stuck.yaml');
const ev = (e: EventInput): JournalEvent => journalEvent(e, 1);
const stuck: Violation = {
  code: 'checkpoint-stuck',
  message: 'checkpoint 3 ... within 1500 ms, while its host answered',
};
const hung: Violation = {
  code: 'session-hung',
  message: 'sent no full heartbeat within 4000 ms, while its host answered',
};
const regressed: Violation = { code: 'regressed', message: 'behind' };

function cycle(cycle: number, observedPhase: KillPhase, resumed: boolean, violations: Violation[]): JournalEvent[] {
  return [
    ev({ type: 'cycle-start', cycle, phase: 'work' }),
    ev({
      type: 'cycle',
      cycle,
      phase: 'work',
      observedPhase,
      outcome: violations.length === 0 ? 'ok' : 'fail',
      downtimeMs: resumed ? 300 : null,
      killStep: 50,
      restoredSeq: resumed ? 2 : null,
      restoredStep: resumed ? 40 : null,
      lostSteps: resumed ? 10 : null,
      restoreKills: 0,
      violations,
    }),
  ];
}

const events: JournalEvent[] = [
  runStartEvent(scenario, 'r', 1),
  ...cycle(1, 'checkpoint', true, []), // a torn write resumed from the previous checkpoint
  ...cycle(2, 'checkpoint', true, [stuck]), // killed in its stuck checkpoint, resumed clean
  ...cycle(3, 'checkpoint', true, [stuck, regressed]), // ... resumed behind its checkpoint
  ...cycle(4, 'checkpoint', false, [stuck]), // a first checkpoint stuck: the session never started (no kill)
  ...cycle(5, 'work', false, [hung]), // a restore that never answered
  ev({ type: 'run-end', status: 'complete', cycles: 5 }),
];

describe('stuck sessions in the analysis', () => {
  const s = analyze(events).summary;

  it('are failed kill-and-resume trials and violations, never indeterminate', () => {
    expect(s.killResume).toMatchObject({ successes: 1, trials: 5 });
    expect(s.cycles).toMatchObject({ total: 5, resumed: 1, failed: 4, indeterminate: 0 });
    expect(s.violations).toBe(5);
  });

  it('torn-checkpoint safety: a stuck checkpoint resumed clean is a safe torn write; with another violation or no resume, not', () => {
    expect(s.tornCheckpoint).toEqual({ trials: 4, previousRestored: 2 }); // cycles 1 and 2
  });
});
