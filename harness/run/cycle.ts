// One kill-and-resume cycle: aim a SIGKILL per the nemesis plan, restore in a fresh host, check the first full
// heartbeat, and journal what the checker observed and the outcome: ok, fail (also when the session got stuck while its
// host answered: session-hung, checkpoint-stuck), or indeterminate with its cause when a host hung, died, hit a full
// disk or a held lock (outcome.ts). Every wait on a host is bounded (README "Timeouts").
// The runner only connects the roles; this file holds the cycle's order of events.
import { sleep } from '../core/clock.js';
import type { CycleEvent, IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import { isEv, type HostHandle } from '../session/host-handle.js';
import type { JournalWriter } from '../journal/writer.js';
import type { Logger } from '../core/logger.js';
import { FREEZE_DEFAULT_MS, planFaultEntry, planKill, planWriteFailure } from '../nemesis/plan.js';
import { freezeCycle } from '../nemesis/freeze.js';
import type { InjectedErrno } from '../nemesis/lazyfs.js';
import { adapterFaultViolation, causeOf, goneCause, sessionFailure } from '../session/infra-cause.js';
import { hostTimeouts } from '../scenario/timeouts.js';
import { indeterminate, judgedCycleEvent, type CycleResult } from './cycle-outcome.js';
import { awaitWriteFailure, damageAfterWriteFault } from '../nemesis/write-fault.js';
import { judgeResume, listenForResume } from './resume-check.js';
import type { Scenario } from '../scenario/scenario.js';
import { Store } from '../store/store.js';
import type { WorkloadModel } from '../check/workload.js';
import type { WarmStandby } from './standby.js';
import { KillPath } from '../nemesis/kill-path.js';
import { readLatest } from './latest.js';
import { adapterFaulted, restartAfterFailure } from './adapter-fault.js';
import { approachKill } from './kill-approach.js';

export interface CycleContext {
  scenario: Scenario;
  /** The run's store, opened read-only by the runner (refreshed before each look). */
  store: Store;
  journal: JournalWriter;
  log: Logger;
  model: WorkloadModel;
  /** The run folder (whose disk tells a host that died on a full disk from one that just died). */
  runDir: string;
  /** Start a session host (journals host-start and wires checkpoint events). */
  spawnHost(mode: 'boot' | 'restore' | 'standby', cycle: number): HostHandle;
  /** The warm standbys (scenario `standby: true`): a restore after a kill is handed to a ready one. */
  standby?: WarmStandby;
  /** Power loss of the store's file system (lazyfs crash + mount again; `store` is reopened); absent without lazyfs. */
  powerLoss?: () => Promise<void>;
  /** The n-th next write under the store fails with `errno` (lazyfs); absent without lazyfs. */
  failWrite?: (n: number, errno: InjectedErrno) => void;
  /** Cancel an injected write error that has not fired (the restore must not meet it). */
  clearFailWrite?: () => void;
}

/** Run cycle `cycle` against the running, ready `host`. */
export async function runCycle(ctx: CycleContext, cycle: number, host: HostHandle): Promise<CycleResult> {
  const { scenario, journal } = ctx;
  const plan = planKill(scenario, cycle);
  const planned = planFaultEntry(scenario, cycle);
  const fault = planned.kind;
  const log = ctx.log.child({ cycle });
  journal.append({ type: 'cycle-start', cycle, phase: plan.phase });
  /** The newest checkpoint acknowledged in this session: the host's own last commit, or the one it restored. */
  const acknowledged = (): { seq: number; step: number } | null => {
    const own = host.lastCommitted;
    const restored = host.restoredFrom;
    return own === null || (restored !== null && restored.seq > own.seq) ? restored : own;
  };
  const journalFault = (): void => {
    const acked = acknowledged();
    journal.append({
      type: 'fault',
      cycle,
      kind: fault,
      acknowledgedSeq: acked?.seq ?? 0,
      acknowledgedStep: acked?.step ?? 0,
      ...(planned.durationMs !== undefined ? { durationMs: planned.durationMs } : {}),
    });
  };
  const timeouts = hostTimeouts(scenario);
  const giveUp = (on: HostHandle, cause: IndeterminateCause, killStep: number): Promise<CycleResult> =>
    indeterminate(ctx, cycle, plan, on, cause, killStep, timeouts.hostMs);
  // the session's host died of its adapter's fault before the kill: the cycle fails with it (adapter-fault.ts)
  const faulted = (v: Violation): Promise<CycleResult> =>
    adapterFaulted(ctx, cycle, plan, host, v, host.maxStep, timeouts.hostMs);
  /** An enospc or eio fault the host failed on (write-fault.ts): no kill; the previous checkpoint must restore. */
  let writeFailure: IndeterminateCause | null = null;
  if (fault === 'enospc' || fault === 'eio') {
    if (!ctx.failWrite) throw new Error(`cycle ${cycle}: an ${fault} fault needs the store on lazyfs`);
    journalFault();
    ctx.failWrite(planWriteFailure(scenario, cycle), fault === 'enospc' ? 'ENOSPC' : 'EIO');
    const after = await awaitWriteFailure(host, timeouts.hostMs, ctx.runDir);
    if (after.kind === 'gone') return giveUp(host, after.cause, host.maxStep);
    if (after.kind === 'failed') writeFailure = after.cause;
  }

  /** The session got stuck before the planned kill (a checkpoint past its bound): killed at once, the cycle fails. */
  let stuck: Violation | null = null;
  if (!writeFailure) {
    const approach = await approachKill(ctx, host, plan, timeouts);
    if (approach.kind === 'host') return giveUp(host, approach.cause, host.maxStep);
    if (approach.kind === 'adapter') return faulted(approach.violation);
    stuck = approach.stuck;
  }
  const gone = writeFailure ? null : goneCause(host, ctx.runDir);
  if (gone) return giveUp(host, gone, host.maxStep);
  if (host.exited && host.adapterFault !== null) return faulted(adapterFaultViolation(host)!);
  const nonce = host.nonce ?? '';
  const observedPhase: KillPhase = host.inFlightSeq !== null ? 'checkpoint' : 'work';
  /**
   * Journal a kill the moment after it was sent (same tick, nothing in between), timed at `sentAt` (when the signal
   * went), so no journal write stands between the plan and the signal. The committed checkpoint is always the one
   * the session had before this cycle's first kill.
   */
  const journalKill = (
    phase: KillPhase,
    observed: KillPhase,
    atStep: number,
    inFlightSeq: number | null,
    sentAt: number,
  ): void =>
    void journal.append(
      {
        type: 'kill',
        cycle,
        phase,
        observedPhase: observed,
        atStep,
        nonce,
        lastCommittedSeq: host.lastCommitted?.seq ?? 0,
        lastCommittedStep: host.lastCommitted?.step ?? 0,
        inFlightSeq,
      },
      { at: sentAt },
    );
  if (fault === 'freeze' && stuck === null) {
    // SIGSTOP where the kill would have landed; past the host timeout the frozen host is killed below, as hung.
    journalFault();
    const durationMs = planned.durationMs ?? FREEZE_DEFAULT_MS;
    const fctx = { ...ctx, hostMs: timeouts.hostMs };
    const thawed = await freezeCycle(fctx, cycle, plan.phase, host, durationMs, (c) => giveUp(host, c, host.maxStep));
    if (thawed) return thawed;
  }
  if (fault === 'power-loss') journalFault();
  const [killAtStep, killInFlight] = [host.maxStep, host.inFlightSeq];
  const tKill = writeFailure ? await host.died : host.kill();
  if (!writeFailure) journalKill(plan.phase, observedPhase, killAtStep, killInFlight, tKill);
  let path: KillPath | null = writeFailure ? null : new KillPath(tKill);
  path?.mark('journaled');
  // While the host dies, resolve what it committed so far: the read that counts, once it is gone, has only a rename in
  // flight at the SIGKILL left (not before a power loss, which reopens the store, nor with a write error pending).
  if (fault === 'sigkill' || fault === 'freeze') readLatest(ctx.store);
  path?.mark('preRead');
  await host.reap(timeouts.hostMs);
  path?.mark('reaped');
  const faultBeforeKill = adapterFaultViolation(host); // it died of its adapter's fault as the kill was sent
  if (host.diedAt !== null) path?.note('exitSeenAfterKill', host.diedAt - tKill);
  ctx.clearFailWrite?.();
  const damaged = fault === 'enospc' || fault === 'eio' ? damageAfterWriteFault(ctx.store) : [];
  let killStep = host.maxStep;
  /** After a power loss: the newest checkpoint acknowledged before it (read to EOF: every ack the host sent). */
  let acknowledgedSeq: number | undefined;
  if (fault === 'power-loss') {
    if (!ctx.powerLoss) throw new Error(`cycle ${cycle}: a power-loss fault needs the store on lazyfs`);
    acknowledgedSeq = acknowledged()?.seq ?? 0;
    await ctx.standby?.discard(timeouts.hostMs); // its open store must not live across the power loss: a cold host restores
    await ctx.powerLoss();
  }

  let restoreKills = 0;
  let restoreKillAimed = false;
  let finalPhase: KillPhase = observedPhase;
  for (;;) {
    const latest = readLatest(ctx.store)?.seq ?? null;
    path?.mark('latest');
    // each restore goes to a ready standby (a second one waits when the plan kills during restores), else a cold host
    const next = ctx.standby?.take(cycle) ?? ctx.spawnHost('restore', cycle);
    path?.mark('handedOff');
    path?.log(log);
    path = null;
    const pending = listenForResume(next, timeouts.resumeMs);

    if (plan.phase === 'restore' && !restoreKillAimed) {
      restoreKillAimed = true;
      try {
        await next.waitFor(isEv('restore-begin'), timeouts.resumeMs, 'restore-begin');
        await sleep(plan.phaseDelayMs);
      } catch (err) {
        // hung, or gone for the machine's reasons: indeterminate; a host that failed on its own is a failed resume
        const cause = causeOf(err, next, ctx.runDir);
        if (cause) return giveUp(next, cause, killStep);
      }
      // A restore that ended before the aimed delay is not killed: a kill then would cut a resumed session, and the
      // cycle's downtime would count the time it ran as time it was down. The cycle is judged as it is (a restore
      // kill that missed: planned phase restore, restoreKills 0; the report counts them).
      if (next.restoring) {
        journalKill('restore', 'restore', killStep, null, next.kill());
        await next.reap(timeouts.hostMs);
        // The restored session may have worked a little before this kill landed: that work existed at the kill.
        killStep = Math.max(killStep, next.maxStep);
        finalPhase = 'restore';
        restoreKills++;
        continue;
      }
      log.debug({ aimedMs: plan.phaseDelayMs }, 'restore kill not sent: the restore had already ended');
    }

    let violations: Violation[];
    let downtimeMs: number | null = null;
    let restoredSeq: number | null = null;
    let restoredStep: number | null = null;
    try {
      const r = await judgeResume(pending, journal, cycle, ctx.model, {
        killStep,
        nonce,
        latestCompleteSeq: latest,
        ...(acknowledgedSeq !== undefined ? { acknowledgedSeq } : {}),
      });
      restoredSeq = r.seq;
      restoredStep = r.step;
      violations = r.violations;
      downtimeMs = r.heartbeatT - tKill;
    } catch (err) {
      const cause = causeOf(err, next, ctx.runDir);
      if (cause) return giveUp(next, cause, killStep);
      violations = [adapterFaultViolation(next) ?? sessionFailure(err)];
      // The store as the runner saw it after the power loss: nothing at or after the acknowledged checkpoint.
      if (acknowledgedSeq !== undefined && acknowledgedSeq > 0 && (latest ?? 0) < acknowledgedSeq)
        violations.push({
          code: 'lost-acknowledged-checkpoint',
          message: `checkpoint ${acknowledgedSeq} was acknowledged before the power loss; the store's newest after it is ${latest ?? 'none'}`,
        });
    }
    violations.push(...damaged);
    if (faultBeforeKill) [violations, downtimeMs] = [[...violations, faultBeforeKill], null];
    if (stuck) violations.unshift(stuck);
    const ok = violations.length === 0;
    const event = journal.append(
      judgedCycleEvent(
        {
          cycle,
          phase: plan.phase,
          observedPhase: finalPhase,
          downtimeMs,
          killStep,
          restoredSeq,
          restoredStep,
          restoreKills,
          violations,
        },
        writeFailure,
      ),
    ) as CycleEvent;
    if (!ok) log.warn({ violations: violations.map((v) => v.message) }, 'cycle failed');
    else log.debug({ downtimeMs, lostSteps: event.lostSteps }, 'cycle verified');
    if (downtimeMs === null) {
      await next.reap(timeouts.hostMs);
      return { event, host: null, restartWith: restartAfterFailure(violations) };
    }
    return { event, host: next, restartWith: 'boot' };
  }
}
