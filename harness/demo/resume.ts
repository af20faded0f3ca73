// After a person's kill: restore the session from the newest complete checkpoint in a fresh host, run the checker on
// its first full heartbeat, and journal it as a soak cycle does (restore, observation, cycle). A kill that lands while
// the restore runs is journaled too (phase restore) and the restore starts again, as in run/cycle.ts.
import type { WorkloadModel } from '../check/workload.js';
import type { CycleEvent, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import { indeterminate, judgedCycleEvent } from '../run/cycle-outcome.js';
import type { SpawnHost } from '../run/host-journal.js';
import { causeOf, sessionFailure } from '../session/infra-cause.js';
import type { HostTimeouts } from '../scenario/timeouts.js';
import type { Logger } from '../core/logger.js';
import type { HostHandle } from '../session/host-handle.js';
import { judgeResume, listenForResume } from '../run/resume-check.js';
import type { Store } from '../store/store.js';

/** What resuming needs: the run's journal, store, model and hosts, and a way to show a new host while it restores. */
export interface ResumeContext {
  journal: JournalWriter;
  store: Store;
  model: WorkloadModel;
  log: Logger;
  runDir: string;
  timeouts: HostTimeouts;
  spawnHost: SpawnHost;
  /** Told each restoring host as soon as it is spawned (the page shows its PID: it can be killed too). */
  restoring(h: HostHandle): void;
  /** True once the demo is stopping: a restoring host that dies then was stopped, not killed by a person. */
  stopping(): boolean;
}

/** What the killed session was: its highest step, its nonce, and where the kill landed. */
export interface KilledSession {
  cycle: number;
  killStep: number;
  nonce: string;
  phase: 'work' | 'checkpoint';
  /** Monotonic time of the kill (a person's: when its death was noticed). */
  tKill: number;
}

/** The cycle's outcome and the host now running the session (null: it could not be resumed). */
export interface Resumed {
  event: CycleEvent;
  host: HostHandle | null;
}

/** Restore, check and journal one interruption (cycle-start and kill are journaled already). */
export async function resumeAfterKill(ctx: ResumeContext, killed: KilledSession): Promise<Resumed> {
  const { journal, cycle } = { journal: ctx.journal, cycle: killed.cycle };
  let killStep = killed.killStep;
  let restoreKills = 0;
  let finalPhase: CycleEvent['observedPhase'] = killed.phase;
  for (;;) {
    ctx.store.refresh();
    const latest = ctx.store.latest()?.seq ?? null;
    const next = ctx.spawnHost('restore', cycle);
    ctx.restoring(next);
    const pending = listenForResume(next, ctx.timeouts.resumeMs);
    let violations: Violation[];
    let downtimeMs: number | null = null;
    let restoredSeq: number | null = null;
    let restoredStep: number | null = null;
    try {
      const r = await judgeResume(pending, journal, cycle, ctx.model, {
        killStep,
        nonce: killed.nonce,
        latestCompleteSeq: latest,
      });
      restoredSeq = r.seq;
      restoredStep = r.step;
      violations = r.violations;
      downtimeMs = r.heartbeatT - killed.tKill;
    } catch (err) {
      if (next.exited?.signal === 'SIGKILL' && !ctx.stopping()) {
        // killed again, while restoring: that is part of this interruption, as a nemesis' restore-phase kill is
        journal.append({
          type: 'kill',
          cycle,
          phase: 'restore',
          observedPhase: next.restoring ? 'restore' : 'work',
          atStep: Math.max(killStep, next.maxStep),
          nonce: killed.nonce,
          lastCommittedSeq: latest ?? 0,
          lastCommittedStep: ctx.store.latest()?.step ?? 0,
          inFlightSeq: null,
        });
        killStep = Math.max(killStep, next.maxStep);
        if (next.restoring) {
          finalPhase = 'restore';
          restoreKills++; // counted only when it cut a restore (a kill after it is one more kill of this interruption)
        }
        continue;
      }
      const cause = causeOf(err, next, ctx.runDir);
      if (cause) {
        const r = await indeterminate(ctx, cycle, { phase: killed.phase }, next, cause, killStep, ctx.timeouts.hostMs);
        return { event: r.event, host: null };
      }
      violations = [sessionFailure(err)];
    }
    const event = journal.append(
      judgedCycleEvent({
        cycle,
        phase: killed.phase,
        observedPhase: finalPhase,
        downtimeMs,
        killStep,
        restoredSeq,
        restoredStep,
        restoreKills,
        violations,
      }),
    ) as CycleEvent;
    if (downtimeMs === null) {
      await next.reap(ctx.timeouts.hostMs);
      return { event, host: null };
    }
    return { event, host: next };
  }
}
