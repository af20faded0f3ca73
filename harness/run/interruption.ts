// After a kill: restore in a fresh host (again if killed while restoring), check the first full heartbeat, journal the
// outcome. One interruption for the soak's cycles (after the nemesis' fault; a restore kill its plan aims) and the
// demo's (after a person's kill; a person may kill the restoring host too), judged and journaled the same way.
import { sleep } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { WorkloadModel } from '../check/workload.js';
import type { CycleEvent, IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { Interrupted } from '../nemesis/fault.js';
import { journalKill, type KillRecord } from '../nemesis/strike.js';
import type { HostTimeouts } from '../scenario/timeouts.js';
import { isEv, type HostHandle } from '../session/host-handle.js';
import { adapterFaultViolation, causeOf, sessionFailure } from '../session/infra-cause.js';
import type { Store } from '../store/store.js';
import { restartAfterFailure } from './adapter-fault.js';
import { indeterminate, judgedCycleEvent, type CycleResult } from './cycle-outcome.js';
import { readLatest } from './latest.js';
import { judgeResume, listenForResume, type PendingResume } from './resume-check.js';

/** What an interruption needs of the run: its journal, store, model and hosts. */
export interface InterruptionContext {
  journal: JournalWriter;
  /** The run's store as the runner holds it now (reopened after a power loss). */
  store: Store;
  model: WorkloadModel;
  log: Logger;
  /** The run folder (whose disk tells a host that died on a full disk from one that just died). */
  runDir: string;
  timeouts: HostTimeouts;
  spawnHost(mode: 'restore', cycle: number): HostHandle;
  /** The warm standbys: a ready one takes each restore, else a cold host starts. */
  standby?: { take(cycle: number): HostHandle | null };
  /** Told each restoring host as soon as it is spawned (the demo shows its PID: it can be killed too). */
  restoring?(host: HostHandle): void;
  /**
   * Kills from outside the runner (the demo's: a person may kill the restoring host): a restoring host SIGKILLed while
   * `stopping()` is false is one more kill of this interruption. Without it, such a death is judged as any other.
   */
  outsideKills?: { stopping(): boolean };
}

/** One cycle's interruption: the session that went down, and the restore kill its plan aims, if any. */
export interface Interruption extends Interrupted {
  cycle: number;
  /** The planned kill phase. */
  phase: KillPhase;
  /** A restore-phase plan: kill the first restore this many ms after it begins (not one that ended before). */
  restoreKillMs?: number;
}

/** Restore, check and journal one interruption (its cycle-start and first kill are journaled already). */
export async function interruption(ctx: InterruptionContext, i: Interruption): Promise<CycleResult> {
  const { journal, timeouts } = ctx;
  const log = ctx.log.child({ cycle: i.cycle });
  let killStep = i.killStep;
  let restoreKills = 0;
  let finalPhase = i.observedPhase;
  let aimMs = i.restoreKillMs ?? null;
  let path = i.path ?? null;
  const giveUp = (on: HostHandle, cause: IndeterminateCause): Promise<CycleResult> =>
    indeterminate(ctx, i.cycle, i, on, cause, killStep, timeouts.hostMs);
  // a kill during a restore: the committed checkpoint it names is always the session's before the cycle's first kill
  const restoreKill = (observedPhase: KillPhase, atStep: number): KillRecord => {
    const { nonce, lastCommitted } = i;
    return { phase: 'restore', observedPhase, atStep, nonce, lastCommitted, inFlightSeq: null };
  };
  for (;;) {
    const latest = readLatest(ctx.store)?.seq ?? null;
    path?.mark('latest');
    // each restore goes to a ready standby (a second one waits when the plan kills during restores), else a cold host
    const next = ctx.standby?.take(i.cycle) ?? ctx.spawnHost('restore', i.cycle);
    path?.mark('handedOff');
    path?.log(log);
    path = null;
    ctx.restoring?.(next);
    const pending = listenForResume(next, timeouts.resumeMs);

    if (aimMs !== null) {
      const delayMs = aimMs;
      aimMs = null;
      try {
        await next.waitFor(isEv('restore-begin'), timeouts.resumeMs, 'restore-begin');
        await sleep(delayMs);
      } catch (err) {
        // hung, or gone for the machine's reasons: indeterminate; a host that failed on its own is a failed resume
        const cause = causeOf(err, next, ctx.runDir);
        if (cause) return giveUp(next, cause);
      }
      // A restore that ended before the aimed delay is not killed: a kill then would cut a resumed session, and the
      // cycle's downtime would count the time it ran as time it was down. The cycle is judged as it is (a restore
      // kill that missed: planned phase restore, restoreKills 0; the report counts them).
      if (next.restoring) {
        journalKill(journal, i.cycle, restoreKill('restore', killStep), next.kill());
        await next.reap(timeouts.hostMs);
        // The restored session may have worked a little before this kill landed: that work existed at the kill.
        killStep = Math.max(killStep, next.maxStep);
        finalPhase = 'restore';
        restoreKills++;
        continue;
      }
      log.debug({ aimedMs: delayMs }, 'restore kill not sent: the restore had already ended');
    }

    const r = await resumeOf(ctx, i, next, pending, killStep, latest);
    if (r.kind === 'killed') {
      // killed again from outside, while restoring: part of this interruption, as a planned restore kill is
      journalKill(journal, i.cycle, restoreKill(next.restoring ? 'restore' : 'work', Math.max(killStep, next.maxStep)));
      killStep = Math.max(killStep, next.maxStep);
      if (next.restoring) {
        finalPhase = 'restore';
        restoreKills++; // counted only when it cut a restore (a kill after it is one more kill of this interruption)
      }
      continue;
    }
    if (r.kind === 'gave-up') return giveUp(next, r.cause);
    const violations = [...r.violations, ...(i.damage ?? [])];
    let downtimeMs = r.downtimeMs;
    if (i.adapterFault) {
      violations.push(i.adapterFault); // it died of its adapter's fault as the kill was sent: no downtime to count
      downtimeMs = null;
    }
    if (i.stuck) violations.unshift(i.stuck);
    const judged = judgedCycleEvent(
      {
        cycle: i.cycle,
        phase: i.phase,
        observedPhase: finalPhase,
        downtimeMs,
        killStep,
        restoreKills,
        violations,
        ...r.restored,
      },
      i.infraCause ?? null,
    );
    const event = journal.append(judged) as CycleEvent;
    if (violations.length > 0) log.warn({ violations: violations.map((v) => v.message) }, 'cycle failed');
    else log.debug({ downtimeMs, lostSteps: event.lostSteps }, 'cycle verified');
    if (downtimeMs === null) {
      await next.reap(timeouts.hostMs);
      return { event, host: null, restartWith: restartAfterFailure(violations) };
    }
    return { event, host: next, restartWith: 'boot' };
  }
}

/** How one restore host's resume went. */
type Resume =
  | {
      kind: 'judged';
      restored: { restoredSeq: number | null; restoredStep: number | null };
      violations: Violation[];
      downtimeMs: number | null;
    }
  | { kind: 'gave-up'; cause: IndeterminateCause }
  /** SIGKILLed from outside while restoring (InterruptionContext.outsideKills). */
  | { kind: 'killed' };

/** Judge `next`'s resume: the checker's verdict, a failure to resume (violations), or why it was not judged. */
async function resumeOf(
  ctx: InterruptionContext,
  i: Interruption,
  next: HostHandle,
  pending: PendingResume,
  killStep: number,
  latest: number | null,
): Promise<Resume> {
  try {
    const r = await judgeResume(pending, ctx.journal, i.cycle, ctx.model, {
      killStep,
      nonce: i.nonce,
      latestCompleteSeq: latest,
      ...(i.acknowledgedSeq !== undefined ? { acknowledgedSeq: i.acknowledgedSeq } : {}),
      ...(i.workBefore !== undefined ? { workBefore: i.workBefore } : {}),
    });
    const restored = { restoredSeq: r.seq, restoredStep: r.step };
    return { kind: 'judged', restored, violations: r.violations, downtimeMs: r.heartbeatT - i.tKill };
  } catch (err) {
    if (ctx.outsideKills && next.exited?.signal === 'SIGKILL' && !ctx.outsideKills.stopping())
      return { kind: 'killed' };
    const cause = causeOf(err, next, ctx.runDir);
    if (cause) return { kind: 'gave-up', cause };
    const violations = [adapterFaultViolation(next) ?? sessionFailure(err)];
    // The store as the runner saw it after the power loss: nothing at or after the acknowledged checkpoint.
    const acked = i.acknowledgedSeq;
    if (acked !== undefined && acked > 0 && (latest ?? 0) < acked)
      violations.push({
        code: 'lost-acknowledged-checkpoint',
        message: `checkpoint ${acked} was acknowledged before the power loss; the store's newest after it is ${latest ?? 'none'}`,
      });
    return { kind: 'judged', restored: { restoredSeq: null, restoredStep: null }, violations, downtimeMs: null };
  }
}
