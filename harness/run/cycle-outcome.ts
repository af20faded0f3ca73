// How a cycle's outcome is journaled: a judged cycle (ok when the checker found nothing, else fail; indeterminate when
// the host failed on an injected disk error and nothing was found), or an indeterminate one with the machine's cause.
import type { Logger } from '../core/logger.js';
import type { CycleEvent, EventInput, IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { HostHandle } from '../session/host-handle.js';

/** How a cycle ended: its journaled outcome, the host now running the session, and how the next session starts. */
export interface CycleResult {
  event: CycleEvent;
  /** The host now running the session, or null when the session could not be resumed. */
  host: HostHandle | null;
  /** How the next session starts when `host` is null: a new boot (it failed), or a restore (it was indeterminate). */
  restartWith: 'boot' | 'restore';
}

/** What a judged cycle (one that reached the checker or failed to resume) observed. */
export interface JudgedCycle {
  cycle: number;
  phase: KillPhase;
  observedPhase: KillPhase;
  downtimeMs: number | null;
  killStep: number;
  restoredSeq: number | null;
  restoredStep: number | null;
  restoreKills: number;
  violations: Violation[];
}

/**
 * The cycle outcome event of a judged cycle: ok when the checker found nothing, work lost since the restored step.
 * With `infraCause` (the host failed on an injected ENOSPC or EIO) a clean cycle is indeterminate with that cause, no
 * downtime: the machine failed, not the system; a violation still makes it fail.
 */
export function judgedCycleEvent(
  c: JudgedCycle,
  infraCause: IndeterminateCause | null = null,
): Extract<EventInput, { type: 'cycle' }> {
  if (infraCause && c.violations.length === 0)
    return { ...judgedCycleEvent(c), outcome: 'indeterminate', downtimeMs: null, cause: infraCause };
  return {
    type: 'cycle',
    cycle: c.cycle,
    phase: c.phase,
    observedPhase: c.observedPhase,
    outcome: c.violations.length === 0 ? 'ok' : 'fail',
    downtimeMs: c.downtimeMs,
    killStep: c.killStep,
    restoredSeq: c.restoredSeq,
    restoredStep: c.restoredStep,
    lostSteps: c.restoredStep === null ? null : c.killStep - c.restoredStep,
    restoreKills: c.restoreKills,
    violations: c.violations,
    cause: null,
  };
}

/**
 * End the cycle as indeterminate: kill `host`'s group (SIGKILL ends a SIGSTOPped one too; its scratch folder goes with
 * it), journal the cause; the session carries on from its newest checkpoint.
 */
export async function indeterminate(
  ctx: { journal: JournalWriter; log: Logger },
  cycle: number,
  plan: { phase: KillPhase },
  host: HostHandle | null,
  cause: IndeterminateCause,
  killStep: number,
  reapMs: number,
): Promise<CycleResult> {
  if (host) await host.reap(reapMs);
  const event = ctx.journal.append({
    type: 'cycle',
    cycle,
    phase: plan.phase,
    observedPhase: plan.phase,
    outcome: 'indeterminate',
    downtimeMs: null,
    killStep: Math.max(0, killStep),
    restoredSeq: null,
    restoredStep: null,
    lostSteps: null,
    restoreKills: 0,
    violations: [],
    cause,
  }) as CycleEvent;
  ctx.log.warn({ cycle, cause }, 'cycle indeterminate');
  return { event, host: null, restartWith: 'restore' };
}
