// What the runner does around a freeze the session carried on from (nemesis/freeze.ts delivers it): journal the
// cycle's outcome with no kill and no downtime; the host carries on unless the checker failed it.
import type { CycleEvent, KillPhase } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { Logger } from '../core/logger.js';
import type { Delivery } from '../nemesis/fault.js';
import type { HostHandle } from '../session/host-handle.js';
import { judgedCycleEvent, type CycleResult } from './cycle-outcome.js';

/** Journal the outcome of a thawed freeze of `host` in cycle `cycle`: ok, or fail with the checker's violations. */
export async function carriedOn(
  ctx: { journal: JournalWriter; log: Logger },
  cycle: number,
  phase: KillPhase,
  host: HostHandle,
  thawed: Extract<Delivery, { kind: 'carried-on' }>,
  reapMs: number,
): Promise<CycleResult> {
  const judged = judgedCycleEvent({
    cycle,
    phase,
    observedPhase: 'work', // no kill landed: a freeze in a checkpoint write does not tear it
    downtimeMs: null, // nothing went down: the same session carried on
    killStep: thawed.frozenStep,
    restoredSeq: null,
    restoredStep: null,
    restoreKills: 0,
    violations: thawed.violations,
  });
  const lostSteps = Math.max(0, thawed.frozenStep - thawed.step);
  const event = ctx.journal.append({ ...judged, lostSteps }) as CycleEvent;
  if (event.outcome === 'ok') {
    ctx.log.debug({ cycle, stallMs: thawed.stallMs }, 'freeze: session carried on');
    return { event, host, restartWith: 'restore' };
  }
  ctx.log.warn({ cycle, violations: thawed.violations.map((v) => v.message) }, 'cycle failed after a freeze');
  await host.reap(reapMs);
  return { event, host: null, restartWith: 'restore' };
}
