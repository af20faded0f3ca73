// The checkpoint-storm fault (issue 36, a run of several sessions): every session checkpoints at once. The sessions meet
// at the storm as at a host crash (crash-barrier.ts: each host seen working past its newest checkpoint, a bounded wait
// that runs out is the harness's cause); the barrier's one loop asks every host for a checkpoint now, so they all
// compete for the disk and the shared packs at once. Each session then kills its host inside the storm: its planned
// delay after its storm checkpoint's begin message (plan.ts stormKill), or at that checkpoint's commit if it comes
// first; and resumes from its newest complete checkpoint, judged by the same checker (a torn storm checkpoint must never
// be restored). Once every session has reported, one `checkpoint-storm` event says how the storm went.
import { nowMs, sleep } from '../core/clock.js';
import { roundMs } from '../core/round.js';
import { SessionHungError } from '../core/errors.js';
import type { IndeterminateCause, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import { stuckCheckpoint } from '../session/checkpoint-watch.js';
import type { HostHandle } from '../session/host-handle.js';
import { adapterFaultViolation, causeOf, goneCause, sessionFailure } from '../session/infra-cause.js';
import type { HostMessage } from '../session/protocol.js';
import { gaveUp, journalFault, type CrashMember, type Delivery, type Fault, type FaultContext } from './fault.js';
import { KillPath } from './kill-path.js';
import { down, journalKill } from './strike.js';

/** One session's storm checkpoint, as it reports it (begun and ended: monotonic ms). */
export interface StormReport {
  /** When its storm checkpoint's begin was seen (null: none began). */
  begin: number | null;
  /** When it ended: its commit seen, or the kill (null: neither). */
  end: number | null;
  outcome: 'committed' | 'torn' | 'failed';
  /** A checkpoint was in flight when the host was asked (the storm checkpoint began after it). */
  queued: boolean;
  pauseMs?: number;
  writeMs?: number;
}

/**
 * TEST-ONLY: SOAK_TEST_STORM_STALLS_SESSION=<i>: at each storm, session i meets the others with its host's messages
 * hidden from the barrier, so it is never seen working past its checkpoint (a SIGSTOP would not do: heartbeats already
 * in the pipe still arrive): the negative control of the barrier's bounded wait (the storm must end as the harness's
 * failure, cause crash-barrier, in every session).
 */
export const STORM_STALLS_SESSION = 'SOAK_TEST_STORM_STALLS_SESSION';

export const checkpointStorm: Fault = {
  kind: 'checkpoint-storm',
  needsLazyfs: false,
  inject(ctx, host) {
    // refused at load with one session (scenario/sessions.ts): the barrier is the storm
    if (!ctx.crash) throw new Error(`cycle ${ctx.cycle}: a checkpoint-storm needs a run of several sessions`);
    return storm(ctx, host, ctx.crash);
  },
};

/** What one session saw of its storm checkpoint (its begin, its commit). */
interface Seen {
  begin?: { seq: number; at: number };
  commit?: { at: number; pauseMs: number; writeMs: number };
  committed?: () => void;
}

/** This session's part of a checkpoint storm: met at the barrier, asked in its loop, killed in its storm checkpoint. */
async function storm(ctx: FaultContext, host: HostHandle, member: CrashMember): Promise<Delivery> {
  const seen: Seen = {};
  const onMsg = (m: HostMessage): void => {
    if (m.ev === 'ckpt-begin' && m.asked === true && !seen.begin) seen.begin = { seq: m.seq, at: nowMs() };
    else if (m.ev === 'ckpt-commit' && seen.begin?.seq === m.seq && !seen.commit) {
      seen.commit = { at: nowMs(), pauseMs: m.pauseMs, writeMs: m.writeMs };
      seen.committed?.();
    }
  };
  host.on('msg', onMsg);
  // once the storm fired, this session reports exactly once (else its storm is never journaled): as failed, if nothing else
  let unreported: (() => void) | null = null;
  try {
    // just before the loop: whether the host was already gone, or in a checkpoint
    const at: { gone: IndeterminateCause | null; queued: boolean } = { gone: null, queued: false };
    const atPoint = (): void => {
      at.queued = host.inFlightSeq !== null;
      at.gone = goneCause(host, ctx.runDir);
      if (at.gone === null) journalFault(ctx, host);
    };
    const stalls = process.env[STORM_STALLS_SESSION] === String(member.session);
    const turn = await member.meet(ctx.cycle, stalls ? unseen(host) : host, atPoint, (h) => h.askCheckpoint());
    if (turn.kind === 'gave-up') return gaveUp(host, turn.cause); // the storm never fired: nothing to report
    const report = (r: StormReport): void => {
      unreported = null;
      member.report(ctx.cycle, r, journalStorm(ctx.cycle));
    };
    const failed = (): void =>
      report({ begin: seen.begin?.at ?? null, end: null, outcome: 'failed', queued: at.queued });
    unreported = failed;
    if (at.gone) return (failed(), gaveUp(host, at.gone)); // it exited before the storm: the machine's, as before any kill
    const began = await stormBegin(ctx, host, seen);
    if (began !== null && began.kind !== 'stuck') return (failed(), began.delivery);
    if (began === null) await inStorm(ctx, host, seen);
    const stuck = began?.kind === 'stuck' ? began.violation : null;
    const [atStep, inFlightSeq, lastCommitted, nonce] = [
      host.maxStep,
      host.inFlightSeq,
      host.lastCommitted,
      host.nonce,
    ];
    const observedPhase = inFlightSeq !== null ? 'checkpoint' : 'work';
    const tKill = host.kill();
    const torn = seen.begin !== undefined && !seen.commit && inFlightSeq === seen.begin.seq;
    const outcome = seen.commit ? 'committed' : torn ? 'torn' : 'failed';
    const c = seen.commit;
    const costs = c ? { pauseMs: c.pauseMs, writeMs: c.writeMs } : {};
    report({ begin: seen.begin?.at ?? null, end: c?.at ?? tKill, outcome, queued: at.queued, ...costs });
    const k = {
      phase: ctx.plan.kill.phase,
      observedPhase,
      atStep,
      nonce: nonce ?? '',
      lastCommitted,
      inFlightSeq,
    } as const;
    journalKill(ctx.journal, ctx.cycle, k, tKill);
    const path = new KillPath(tKill);
    path.mark('journaled');
    ctx.readLatest();
    path.mark('preRead');
    return await down(ctx, host, { tKill, nonce: k.nonce, observedPhase, stuck, path });
  } finally {
    host.off('msg', onMsg);
    unreported?.();
  }
}

/** TEST-ONLY (STORM_STALLS_SESSION): `host` as the barrier sees it, with none of its messages. */
function unseen(host: HostHandle): HostHandle {
  const view = Object.create(host) as HostHandle;
  view.on = (ev, fn) => (ev === 'msg' ? view : (host.on(ev, fn), view));
  view.off = (ev, fn) => (ev === 'msg' ? view : (host.off(ev, fn), view));
  return view;
}

/** The storm checkpoint's begin, bounded; null once seen, else why not: the host's cause, its adapter, or stuck. */
async function stormBegin(
  ctx: FaultContext,
  host: HostHandle,
  seen: Seen,
): Promise<null | { kind: 'stuck'; violation: Violation } | { kind: 'ended'; delivery: Delivery }> {
  if (seen.begin) return null;
  try {
    const asked = (m: HostMessage): boolean => m.ev === 'ckpt-begin' && m.asked === true;
    await host.waitFor(asked, ctx.timeouts.hostMs, 'the storm checkpoint to begin');
    return null;
  } catch (err) {
    const cause = causeOf(err, host, ctx.runDir);
    if (cause) return { kind: 'ended', delivery: gaveUp(host, cause) };
    if (err instanceof SessionHungError) return { kind: 'stuck', violation: sessionFailure(err) };
    const fault = adapterFaultViolation(host);
    if (fault) return { kind: 'ended', delivery: { kind: 'adapter-fault', violation: fault } };
    throw err;
  }
}

/** Inside the storm checkpoint: until its planned delay after the begin, its commit, the host's exit or its watch. */
async function inStorm(ctx: FaultContext, host: HostHandle, seen: Seen): Promise<void> {
  if (seen.commit) return;
  const left = Math.max(0, seen.begin!.at + ctx.plan.kill.phaseDelayMs - nowMs());
  const committed = new Promise<void>((resolve) => (seen.committed = resolve));
  // the loser runs out on its own (the watch and the death resolve when the host is reaped)
  await Promise.race([sleep(left), committed, host.died, stuckCheckpoint(host)]);
}

/** The storm's event, from every session's report (session order), journaled in the run's journal. */
function journalStorm(cycle: number): (reports: unknown[], journal: JournalWriter) => void {
  return (reports, journal) => {
    const all = reports as StormReport[];
    const begins = all.flatMap((r) => (r.begin === null ? [] : [r.begin]));
    const ends = all.flatMap((r) => (r.end === null ? [] : [r.end]));
    const committed = all.filter((r) => r.outcome === 'committed');
    const first = Math.min(...begins);
    journal.append({
      type: 'checkpoint-storm',
      cycle,
      sessions: all.length,
      begun: begins.length,
      queued: all.filter((r) => r.queued).length,
      spreadMs: begins.length === 0 ? null : roundMs(Math.max(...begins) - first),
      durationMs: begins.length === 0 || ends.length === 0 ? null : roundMs(Math.max(...ends) - first),
      committed: committed.length,
      torn: all.filter((r) => r.outcome === 'torn').length,
      failed: all.filter((r) => r.outcome === 'failed').length,
      pauseMs: committed.map((r) => roundMs(r.pauseMs!)),
      writeMs: committed.map((r) => roundMs(r.writeMs!)),
    });
  };
}
