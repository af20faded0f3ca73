// A fault kind as the nemesis delivers it: one object per kind (faults.ts maps each kind to its object) whose one inject
// step approaches the planned point on the session's host and delivers the fault there, and says what became of the
// session: interrupted (the runner restores and judges it: run/interruption.ts), or the cycle ended without a resume.
import type { WorkloadModel } from '../check/workload.js';
import type { Logger } from '../core/logger.js';
import type { CycleEvent, IndeterminateCause, KillPhase, Violation } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { FaultKind, Scenario } from '../scenario/scenario.js';
import type { HostTimeouts } from '../scenario/timeouts.js';
import type { HostHandle } from '../session/host-handle.js';
import type { Store } from '../store/store.js';
import type { KillPath } from './kill-path.js';
import type { InjectedErrno } from './lazyfs.js';
import type { CyclePlan } from './plan.js';

/** One fault kind: how it is delivered. */
export interface Fault {
  readonly kind: FaultKind;
  /** Delivered through the lazy file system under the store: a run whose scenario lists this kind mounts one. */
  readonly needsLazyfs: boolean;
  /** Approach the planned point on `host` (the session's, running and ready) and deliver the fault there. */
  inject(ctx: FaultContext, host: HostHandle): Promise<Delivery>;
}

/** What the runner lends a fault for one cycle. */
export interface FaultContext {
  cycle: number;
  plan: CyclePlan;
  scenario: Scenario;
  journal: JournalWriter;
  log: Logger;
  model: WorkloadModel;
  /** The run folder (whose disk tells a host that died on a full disk from one that just died). */
  runDir: string;
  timeouts: HostTimeouts;
  /** The run's store as the runner holds it now (reopened after a power loss). */
  store(): Store;
  /** Approach the planned kill: its work delay, a checkpoint's begin and delay, raced with the checkpoint watch. */
  approach(host: HostHandle): Promise<Approach>;
  /** Read the store's newest complete checkpoint now, so the read that counts, once the host is gone, is short. */
  readLatest(): void;
  /** The lazy file system under the store (absent unless a listed fault needs it). */
  lazyfs?: LazyfsControl;
  /** The run's warm standby hosts (scenario `standby: true`). */
  standby?: StandbyControl;
  /** This session's part in the run's host crashes (a run of several sessions that plans them: crash-barrier.ts). */
  crash?: CrashMember;
}

/**
 * A session at its cycle's meeting (crash-barrier.ts): killed (in the loop, or by the kernel in a squeeze), spared by a
 * squeeze (memory-pressure.ts: its own planned kill follows), or the meeting failed.
 */
export type CrashTurn =
  { kind: 'crashed'; tKill: number } | { kind: 'spared' } | { kind: 'gave-up'; cause: IndeterminateCause };

/** One session's part in the run's host crashes (crash-barrier.ts): what its cycle loop and host-crash fault call. */
export interface CrashMember {
  /** This session's index in the run. */
  readonly session: number;
  /** Cycle `cycle`'s plan: the session's own kill plan, the fault the run's seed plans (the same in every session). */
  plan(cycle: number, own: Scenario): CyclePlan;
  /**
   * Bring `host` to the crash of `cycle`; `atPoint` runs for every session just before the loop's first kill. `act`:
   * what the loop does to the host instead of SIGKILL (a checkpoint storm asks it for a checkpoint), returning when.
   */
  meet(cycle: number, host: HostHandle, atPoint: () => void, act?: (host: HostHandle) => number): Promise<CrashTurn>;
  /**
   * After a fired `act` loop (a checkpoint storm): this session's report; once every session it took has reported,
   * `whole` gets them in session order with the run's journal (once).
   */
  report(cycle: number, value: unknown, whole: (reports: unknown[], journal: JournalWriter) => void): void;
  /** After the crash: whether this session's host was then seen to die. */
  died(cycle: number, died: boolean): void;
  /** This session's outcome of cycle `cycle` (any cycle: only a crash it took part in counts it). */
  settled(cycle: number, event: CycleEvent): void;
  /** This session ended cycle `cycle` (with or without a host). */
  ended(cycle: number): void;
  /** This session's loop ended: no crash waits for it any more. */
  leave(): void;
}

/** What a fault may do to the lazy file system under the store. */
export interface LazyfsControl {
  /** The n-th next write under the store fails with `errno`. */
  failWrite(n: number, errno: InjectedErrno): void;
  /** Cancel an injected write error that has not fired (the restore must not meet it). */
  clearFailWrite(): void;
  /** Power loss: drop every write not fsynced, mount again; the runner reopens its store. */
  powerLoss(): Promise<void>;
}

/** What a fault may do to the warm standbys. */
export interface StandbyControl {
  /** SIGKILL every waiting standby's group and kill list now (the machine they share died). */
  killAll(): void;
  /** Kill and reap the waiting standbys: the next restore starts a cold host. */
  discard(reapMs: number): Promise<void>;
}

/** Where the approach to a kill ended: at the planned point (`stuck`: earlier, the session's violation), or not. */
export type Approach =
  | { kind: 'kill'; stuck: Violation | null }
  /** The host stopped answering or died for the machine's reasons: the cycle is indeterminate. */
  | { kind: 'host'; cause: IndeterminateCause }
  /** The session's host died of its adapter's fault on the way: the cycle fails with it. */
  | { kind: 'adapter'; violation: Violation };

/** What became of the session the fault was delivered to. */
export type Delivery =
  /** The session went down: the runner restores and judges it. */
  | { kind: 'interrupted'; interrupted: Interrupted }
  /** The host hung or died for the machine's reasons: the cycle is indeterminate (`host` is reaped). */
  | { kind: 'gave-up'; host: HostHandle; cause: IndeterminateCause; killStep: number }
  /** The host died of its adapter's fault before the kill: the cycle fails with it. */
  | { kind: 'adapter-fault'; violation: Violation }
  /** Nothing went down (a thawed freeze): the same session carried on, judged by `violations`. */
  | { kind: 'carried-on'; frozenStep: number; step: number; stallMs: number; violations: Violation[] };

/** A session that went down, as the runner restores and judges it. */
export interface Interrupted {
  /** Monotonic time it went down: the kill sent, or when the exit of a host that failed on its own was seen. */
  tKill: number;
  /** The highest step the session reported. */
  killStep: number;
  /** Where the kill landed: in a checkpoint write, or not. */
  observedPhase: KillPhase;
  /** The session's boot nonce. */
  nonce: string;
  /** The checkpoint the session had committed before the cycle's first kill. */
  lastCommitted: { seq: number; step: number } | null;
  /** The session was stuck on the way (killed at once): the cycle fails with it. */
  stuck?: Violation | null;
  /** The host died of its adapter's fault as the kill was sent: the cycle fails with it, no downtime. */
  adapterFault?: Violation | null;
  /** What the fault left that the checker does not see (the store damaged by an injected write error). */
  damage?: Violation[];
  /** The host failed on an injected disk error (no kill): a clean resume is indeterminate with this cause. */
  infraCause?: IndeterminateCause | null;
  /** After a power loss: the newest checkpoint acknowledged before it, which the restore must not fall behind. */
  acknowledgedSeq?: number;
  /** The coding workload's failures in the state the killed host started from (only failures past it are the cycle's). */
  workBefore?: number;
  /** The kill path's steps so far (kill-path.ts), logged once the restore is handed off. */
  path?: KillPath | null;
}

/** The newest checkpoint acknowledged in `host`'s session: its own last commit, or the one it restored. */
export function acknowledged(host: HostHandle): { seq: number; step: number } | null {
  const own = host.lastCommitted;
  const restored = host.restoredFrom;
  return own === null || (restored !== null && restored.seq > own.seq) ? restored : own;
}

/** Journal the planned fault before it is delivered, with the newest checkpoint acknowledged before it. */
export function journalFault(ctx: FaultContext, host: HostHandle): void {
  const acked = acknowledged(host);
  const { kind, durationMs } = ctx.plan.fault;
  ctx.journal.append({
    type: 'fault',
    cycle: ctx.cycle,
    kind,
    acknowledgedSeq: acked?.seq ?? 0,
    acknowledgedStep: acked?.step ?? 0,
    ...(durationMs !== undefined ? { durationMs } : {}),
  });
}

/** The cycle ends indeterminate with `cause` (the host's highest step as the kill step). */
export function gaveUp(host: HostHandle, cause: IndeterminateCause): Delivery {
  return { kind: 'gave-up', host, cause, killStep: host.maxStep };
}

/** The lazy file system a `kind` fault needs; throws when the run has none (needsLazyfs should have mounted it). */
export function lazyfsFor(ctx: FaultContext, kind: FaultKind): LazyfsControl {
  if (!ctx.lazyfs) throw new Error(`cycle ${ctx.cycle}: a ${kind} fault needs the store on lazyfs`);
  return ctx.lazyfs;
}
