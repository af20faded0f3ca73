// A session whose exec adapter broke the protocol (the host relays its AdapterError, exit 5): during a restore, work or
// a checkpoint the cycle fails with violation `adapter-fault` (counted in the kill-and-resume rate, no downtime); at a
// boot there is no session to judge, and the run ends with the AdapterError (run-end reason "adapter fault: ...").
import { AdapterError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { CycleEvent, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { HostHandle } from '../session/host-handle.js';
import type { KillPlan } from '../nemesis/plan.js';
import { judgedCycleEvent } from './cycle-outcome.js';

/** The AdapterError to end the run with when `host` died of its adapter's fault; else `err` as it was. */
export function orAdapterError(err: unknown, host: HostHandle | null): unknown {
  const message = host?.adapterFault ?? null;
  return message === null || err instanceof AdapterError ? err : new AdapterError(message, { cause: err });
}

/** How the session starts after a failed resume: boots anew; after an adapter fault the store is as it was: restores. */
export function restartAfterFailure(violations: readonly Violation[]): 'boot' | 'restore' {
  return violations.some((v) => v.code === 'adapter-fault') ? 'restore' : 'boot';
}

/**
 * End the cycle as failed by an adapter fault: reap `host`'s group, journal outcome fail with the violation and no
 * downtime; the session carries on from its newest checkpoint (the store is not in question).
 */
export async function adapterFaulted(
  ctx: { journal: JournalWriter; log: Logger },
  cycle: number,
  plan: Pick<KillPlan, 'phase'>,
  host: HostHandle,
  fault: Violation,
  killStep: number,
  reapMs: number,
): Promise<{ event: CycleEvent; host: null; restartWith: 'restore' }> {
  await host.reap(reapMs);
  const event = ctx.journal.append(
    judgedCycleEvent({
      cycle,
      phase: plan.phase,
      observedPhase: plan.phase,
      downtimeMs: null,
      killStep: Math.max(0, killStep),
      restoredSeq: null,
      restoredStep: null,
      restoreKills: 0,
      violations: [fault],
    }),
  ) as CycleEvent;
  ctx.log.warn({ cycle, violation: fault.message }, 'cycle failed: adapter fault');
  return { event, host: null, restartWith: 'restore' };
}
