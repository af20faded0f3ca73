// One interruption's outcome as the demo page shows it, read off the cycle event the journal got (one source).
import type { CycleEvent } from '../journal/events.js';
import type { InterruptionView, KilledBy } from './state.js';

/** The page's view of cycle `event`: downtime, checkpoint resumed from, steps lost, nonce, the checker's verdict. */
export function interruptionView(event: CycleEvent, by: KilledBy, noticeMs: number | null): InterruptionView {
  const resumed = event.downtimeMs !== null;
  return {
    cycle: event.cycle,
    by,
    verdict: event.outcome,
    downtimeMs: event.downtimeMs,
    noticeMs,
    restoredSeq: event.restoredSeq,
    restoredStep: event.restoredStep,
    killStep: event.killStep,
    lostSteps: event.lostSteps,
    noncePreserved: resumed && !event.violations.some((v) => v.code === 'nonce'),
    violations: event.violations.map((v) => v.message),
  };
}
