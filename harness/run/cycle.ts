// One kill-and-resume cycle: aim a SIGKILL per the nemesis plan, restore in a fresh host, check the first full
// heartbeat, and journal what the checker observed and the outcome. The runner only connects the roles; this file
// holds the cycle's order of events.
import { sleep } from '../core/clock.js';
import { checkResume, type ResumeObservation } from '../check/checker.js';
import type { CycleEvent, KillPhase, Violation } from '../journal/events.js';
import { isEv, isFullHeartbeat, type HostHandle } from '../session/host-handle.js';
import type { JournalWriter } from '../journal/writer.js';
import { observationEvent } from '../journal/observation.js';
import type { Logger } from '../core/logger.js';
import { planKill } from './nemesis.js';
import type { Scenario } from '../scenario/scenario.js';
import { Store } from '../store/store.js';
import type { WorkloadModel } from '../check/workload.js';

export interface CycleContext {
  scenario: Scenario;
  /** The run's store, opened read-only by the runner (refreshed before each look). */
  store: Store;
  journal: JournalWriter;
  log: Logger;
  model: WorkloadModel;
  /** Start a session host (journals host-start and wires checkpoint events). */
  spawnHost(mode: 'boot' | 'restore', cycle: number): HostHandle;
}

export interface CycleResult {
  event: CycleEvent;
  /** The host now running the session, or null when the session could not be resumed. */
  host: HostHandle | null;
}

/** Run cycle `cycle` against the running, ready `host`. */
export async function runCycle(ctx: CycleContext, cycle: number, host: HostHandle): Promise<CycleResult> {
  const { scenario, journal } = ctx;
  const plan = planKill(scenario, cycle);
  const log = ctx.log.child({ cycle });
  journal.append({ type: 'cycle-start', cycle, phase: plan.phase });

  await sleep(plan.workDelayMs);
  if (plan.phase === 'checkpoint') {
    await host.waitFor(isEv('ckpt-begin'), Math.max(10_000, scenario.checkpoint.everyMs * 4));
    if (plan.phaseDelayMs > 0) await sleep(plan.phaseDelayMs);
  }
  const nonce = host.nonce ?? '';
  const observedPhase: KillPhase = host.inFlightSeq !== null ? 'checkpoint' : 'work';
  /** Journal a kill before it is sent; the committed checkpoint is always the one the session had before this cycle's first kill. */
  const journalKill = (phase: KillPhase, observed: KillPhase, atStep: number, inFlightSeq: number | null): void =>
    void journal.append({
      type: 'kill',
      cycle,
      phase,
      observedPhase: observed,
      atStep,
      nonce,
      lastCommittedSeq: host.lastCommitted?.seq ?? 0,
      lastCommittedStep: host.lastCommitted?.step ?? 0,
      inFlightSeq,
    });
  journalKill(plan.phase, observedPhase, host.maxStep, host.inFlightSeq);
  const tKill = host.kill();
  await host.done;
  let killStep = host.maxStep;

  let restoreKills = 0;
  let finalPhase: KillPhase = observedPhase;
  for (;;) {
    ctx.store.refresh();
    const latest = ctx.store.latest()?.seq ?? null;
    const next = ctx.spawnHost('restore', cycle);
    // Listen for both before anything arrives: they can come in one read.
    const restored = next.waitFor(isEv('restore-end'), scenario.resumeTimeoutMs);
    const firstFull = next.waitFor(isFullHeartbeat, scenario.resumeTimeoutMs);
    restored.catch(() => {});
    firstFull.catch(() => {});

    if (plan.phase === 'restore' && restoreKills === 0) {
      try {
        await next.waitFor(isEv('restore-begin'), scenario.resumeTimeoutMs);
        await sleep(plan.phaseDelayMs);
      } catch {
        // the host died before restoring: handled below as a failed resume
      }
      const during = next.restoring;
      journalKill('restore', during ? 'restore' : 'work', killStep, null);
      next.kill();
      await next.done;
      // The restored session may have worked a little before this kill landed: that work existed at the kill.
      killStep = Math.max(killStep, next.maxStep);
      if (during) finalPhase = 'restore';
      restoreKills++;
      continue;
    }

    let violations: Violation[];
    let downtimeMs: number | null = null;
    let restoredSeq: number | null = null;
    let restoredStep: number | null = null;
    try {
      const [{ msg: end }, { msg: hb, t }] = await Promise.all([restored, firstFull]);
      restoredSeq = end.seq;
      restoredStep = end.step;
      journal.append({ type: 'restore', cycle, seq: end.seq, step: end.step, restoreMs: end.restoreMs });
      const observed: ResumeObservation = {
        heartbeat: hb,
        restored: { seq: end.seq, step: end.step },
        killStep,
        nonce,
        latestCompleteSeq: latest,
      };
      // What the checker looks at is journaled before its verdict, so `soak check` can re-judge the stored run.
      journal.append(observationEvent(cycle, observed));
      violations = checkResume(observed, ctx.model);
      downtimeMs = t - tKill;
    } catch (err) {
      violations = [{ code: 'no-resume', message: `session did not resume: ${(err as Error).message}` }];
    }
    const ok = violations.length === 0;
    const event = journal.append({
      type: 'cycle',
      cycle,
      phase: plan.phase,
      observedPhase: finalPhase,
      outcome: ok ? 'ok' : 'fail',
      downtimeMs,
      killStep,
      restoredSeq,
      restoredStep,
      lostSteps: restoredStep === null ? null : killStep - restoredStep,
      restoreKills,
      violations,
    }) as CycleEvent;
    if (!ok) log.warn({ violations: violations.map((v) => v.message) }, 'cycle failed');
    else log.debug({ downtimeMs, lostSteps: event.lostSteps }, 'cycle verified');
    if (downtimeMs === null) {
      next.kill();
      await next.done;
      return { event, host: null };
    }
    return { event, host: next };
  }
}
