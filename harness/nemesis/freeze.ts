// The freeze fault: SIGSTOP of the session host's whole group (host, agent, tools, QEMU) for the planned time, then
// SIGCONT, and the check that the same session carried on where it stopped. A freeze that outlasts the host timeout
// is a hung host: the caller SIGKILLs the group and resumes from the newest checkpoint, as after a kill.
import { nowMs, sleep } from '../core/clock.js';
import { checkContinued } from '../check/continued.js';
import type { WorkloadModel } from '../check/workload.js';
import type { Logger } from '../core/logger.js';
import type { CycleEvent, IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import { isFullHeartbeat, type HostHandle } from '../session/host-handle.js';
import { causeOf, sessionFailure } from '../session/infra-cause.js';
import { judgedCycleEvent } from '../run/cycle-outcome.js';
import { holdCheckpointWatch } from '../session/checkpoint-watch.js';

/** Send `signal` to every process of `host`'s session: its group and the (checked again) entries of its kill list. */
export function signalSession(host: Pick<HostHandle, 'pid' | 'signalKillList'>, signal: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(-host.pid, signal);
  } catch {
    // gone already
  }
  host.signalKillList(signal);
}

/** How a freeze ended. */
export type FreezeResult =
  /** Thawed: SIGCONT sent; the first full heartbeat after it was checked. */
  | { thawed: true; violations: Violation[]; step: number; stallMs: number }
  /** Outlasted the host timeout: still stopped; the caller kills and resumes. */
  | { thawed: false; frozenMs: number };

/**
 * Freeze `host` for `durationMs` (at most `hostMs`: past it the host counts as hung and stays stopped for the caller to
 * kill), then SIGCONT it (its host asks the target for a full heartbeat on SIGCONT) and check that heartbeat.
 * Rejects as the host's wait does when no full heartbeat comes within `hostMs` of the SIGCONT, or the host exits.
 */
export async function freezeHost(
  host: HostHandle,
  durationMs: number,
  hostMs: number,
  model: WorkloadModel,
): Promise<FreezeResult> {
  const frozenStep = host.maxStep;
  const nonce = host.nonce ?? '';
  const stopped = nowMs();
  const releaseWatch = holdCheckpointWatch(host); // the harness's stop: no checkpoint bound runs through it
  signalSession(host, 'SIGSTOP');
  if (durationMs > hostMs) {
    await sleep(hostMs);
    return { thawed: false, frozenMs: nowMs() - stopped };
  }
  await sleep(durationMs);
  // Listen before SIGCONT: the heartbeat may come in the first read after it.
  const next = host.waitFor(isFullHeartbeat, hostMs, 'full heartbeat after SIGCONT');
  const thawedAt = nowMs();
  signalSession(host, 'SIGCONT');
  releaseWatch();
  const { msg: hb, t } = await next;
  return {
    thawed: true,
    violations: checkContinued({ heartbeat: hb, frozenStep, nonce }, model),
    step: hb.step,
    stallMs: t - thawedAt,
  };
}

/** A thawed freeze's cycle result (cycle.ts's CycleResult): the host carries on unless it failed. */
export interface ThawedCycle {
  event: CycleEvent;
  host: HostHandle | null;
  restartWith: 'restore';
}

/** What a freeze cycle needs of the cycle's context. */
export interface FreezeCycleContext {
  journal: JournalWriter;
  log: Logger;
  model: WorkloadModel;
  runDir: string;
  hostMs: number;
}

/**
 * Deliver a planned freeze to `host` and journal the cycle's outcome when it thawed: ok, or fail with the checker's
 * violations (or when the session died after SIGCONT). Resolves null when the freeze outlasted the host timeout: the
 * host is still stopped and the caller kills it and resumes. A host that hung after SIGCONT, or died for the
 * machine's reasons, goes to `giveUp` (indeterminate).
 */
export async function freezeCycle<R>(
  ctx: FreezeCycleContext,
  cycle: number,
  phase: KillPhase,
  host: HostHandle,
  durationMs: number,
  giveUp: (cause: IndeterminateCause) => Promise<R>,
): Promise<R | ThawedCycle | null> {
  const frozenStep = host.maxStep;
  let r: FreezeResult;
  try {
    r = await freezeHost(host, durationMs, ctx.hostMs, ctx.model);
  } catch (err) {
    const cause = causeOf(err, host, ctx.runDir);
    if (cause) return giveUp(cause);
    r = {
      thawed: true,
      violations: [sessionFailure(err, 'session did not carry on after a freeze')],
      step: host.maxStep,
      stallMs: 0,
    };
  }
  if (!r.thawed) {
    ctx.log.debug({ cycle, frozenMs: r.frozenMs }, 'freeze outlasted the host timeout: kill and resume');
    return null;
  }
  const judged = judgedCycleEvent({
    cycle,
    phase,
    observedPhase: 'work', // no kill landed: a freeze in a checkpoint write does not tear it
    downtimeMs: null, // nothing went down: the same session carried on
    killStep: frozenStep,
    restoredSeq: null,
    restoredStep: null,
    restoreKills: 0,
    violations: r.violations,
  });
  const event = ctx.journal.append({ ...judged, lostSteps: Math.max(0, frozenStep - r.step) }) as CycleEvent;
  if (event.outcome === 'ok') {
    ctx.log.debug({ cycle, stallMs: r.stallMs }, 'freeze: session carried on');
    return { event, host, restartWith: 'restore' };
  }
  ctx.log.warn({ cycle, violations: r.violations.map((v) => v.message) }, 'cycle failed after a freeze');
  await host.reap(ctx.hostMs);
  return { event, host: null, restartWith: 'restore' };
}
