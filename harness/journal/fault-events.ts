// The nemesis's events (issue 17, issue 36): a fault journaled before it is delivered, a host crash of every session
// of a run of several sessions (nemesis/crash-barrier.ts), a checkpoint storm of every session
// (nemesis/checkpoint-storm.ts) and a memory squeeze of them all (nemesis/memory-pressure.ts); kept beside events.ts
// so its list stays one screen.
import type { FaultKind } from '../scenario/scenario.js';

/**
 * A fault other than SIGKILL, journaled before it is delivered (a cycle without one was a plain SIGKILL), with the
 * newest checkpoint whose commit the store acknowledged before it: a power loss must not take that one away.
 */
export interface FaultEvent {
  schemaVersion: 1;
  t: number;
  type: 'fault';
  session?: number; // as events.ts's Base
  cycle: number;
  kind: FaultKind;
  acknowledgedSeq: number;
  acknowledgedStep: number;
  /** freeze: how long the host group was to stay SIGSTOPped (past the host timeout it is SIGKILLed instead). */
  durationMs?: number;
}

/**
 * One host crash of a run of several sessions (issue 36, nemesis/crash-barrier.ts): every session's host SIGKILLed in
 * one loop, then all resumed at once; journaled once every session it took has its cycle's outcome.
 */
export interface HostCrashEvent {
  schemaVersion: 1;
  t: number;
  type: 'host-crash';
  session?: number; // as events.ts's Base (never set: the crash is the run's)
  cycle: number;
  /** Sessions the crash took (their hosts were in the loop). */
  sessions: number;
  /** Of them, the sessions whose host was then seen to die (a host that outlived the crash is not killed). */
  killed: number;
  /** The first to the last kill of the loop, ms. */
  spreadMs: number;
  /** Sessions that resumed (their cycle has a downtime). */
  back: number;
  /** The crash (the loop's first kill) to the last session's first verified heartbeat, ms; null: not all came back. */
  lastBackMs: number | null;
}

/**
 * One checkpoint storm of a run of several sessions (issue 36, nemesis/checkpoint-storm.ts): every session's host
 * asked for a checkpoint in one loop, then killed inside it; journaled once every session it took has reported.
 */
export interface CheckpointStormEvent {
  schemaVersion: 1;
  t: number;
  type: 'checkpoint-storm';
  session?: number; // as events.ts's Base (never set: the storm is the run's)
  cycle: number;
  /** Sessions the storm took (their hosts were in the loop). */
  sessions: number;
  /** Of them, the sessions whose storm checkpoint was seen to begin. */
  begun: number;
  /** Sessions with a checkpoint in flight when asked (their storm checkpoint began once it committed). */
  queued: number;
  /** The first to the last storm checkpoint's begin, ms (null: none began). */
  spreadMs: number | null;
  /** The first begin to the last storm checkpoint's commit or kill, ms (null: none began). */
  durationMs: number | null;
  /** Storm checkpoints committed before their session's kill. */
  committed: number;
  /** Storm checkpoints in flight at their session's kill (torn: never to be restored). */
  torn: number;
  /** Sessions whose storm checkpoint neither committed nor was in flight at the kill (none began, the host died). */
  failed: number;
  /** The committed storm checkpoints' pause and write times, ms (one each per committed checkpoint). */
  pauseMs: number[];
  writeMs: number[];
}

/**
 * One memory squeeze (issue 36, nemesis/memory-pressure.ts): every session's host in the run's memory cgroup, its
 * limit lowered until the kernel's OOM killer killed a process in it (or the bounded wait ran out), then lifted.
 */
export interface MemoryPressureEvent {
  schemaVersion: 1;
  t: number;
  type: 'memory-pressure';
  session?: number; // as events.ts's Base (never set: the squeeze is the run's)
  cycle: number;
  /** Sessions squeezed (their hosts were in the cgroup). */
  sessions: number;
  /** Bytes charged to the cgroup as the squeeze began. */
  usageBytes: number;
  /** The limit in force when the OOM killer fired (or when the wait ran out), bytes. */
  limitBytes: number;
  /** Processes the OOM killer killed in the cgroup (memory.oom_control oom_kill, before the limit was lifted). */
  oomKills: number;
  /** The processes seen dead after the kill, each with its session (null: a process of no squeezed session). */
  victims: { session: number | null; pid: number }[];
  /** The first limit to the OOM kill seen, ms; null: no OOM kill within the bounded wait (the harness's cause). */
  killMs: number | null;
}
