// Journal event types: every line of runs/<id>/journal.ndjson is one of these, with a schemaVersion.
import type { Violation } from '../check/heartbeat.js';
import type { Environment } from '../core/environment.js';
import type { LoadSample } from '../core/machine-load.js';
import type { EffectsEvent } from './effects-event.js';
import type { GuestStateEvent } from './guest-state-event.js';
import type { ObservationEventFields } from './observation-event.js';
import type { StoreTally } from './store-tally.js';
export type { StoreTally } from './store-tally.js';
import type { CheckpointStormEvent, FaultEvent, HostCrashEvent, MemoryPressureEvent } from './fault-events.js';
export type { CheckpointStormEvent, FaultEvent, HostCrashEvent, MemoryPressureEvent } from './fault-events.js';
export type { Violation, ViolationCode } from '../check/heartbeat.js';
import type { Scenario } from '../scenario/scenario.js';

export const JOURNAL_SCHEMA_VERSION = 1;

/** Where a kill was aimed, and where it actually landed. */
export type KillPhase = 'work' | 'checkpoint' | 'restore';

/**
 * Jepsen-style outcome (its :ok, :fail, :info): ok (resumed and verified), fail (the checker found a violation, or the
 * session could not resume: a claim about the system under test), indeterminate (the harness or the machine failed
 * before the cycle could be judged: never counted as a failure of the system under test).
 */
export type Outcome = 'ok' | 'fail' | 'indeterminate';

/** Why a cycle is indeterminate: a closed set, so reports and gates can count them. */
export const CAUSE_CODES = [
  'host-hung',
  'host-exited',
  'enospc',
  'eio',
  'lock-conflict',
  'crash-barrier',
  'memory-pressure',
] as const;
export type CauseCode = (typeof CAUSE_CODES)[number];

/** The cause of an indeterminate cycle: its code and what was seen (one line). */
export interface IndeterminateCause {
  code: CauseCode;
  message: string;
}

interface Base {
  schemaVersion: typeof JOURNAL_SCHEMA_VERSION;
  /** ms since the run started, monotonic clock. */
  t: number;
  session?: number; // which of a run's sessions at once (scenario sessions, issue 36) it is of; absent: session 0
}

/**
 * One source run of a merged run (`soak merge`): where its cycles came from. `machine` never names the host: it is
 * core/environment.ts's machineLabel (CPU model, cores, kernel release and a short hash of them).
 */
export interface SourceRun {
  runId: string;
  machine: string;
  seed: number;
  shard?: { index: number; count: number };
  /** Cycles it planned (its shard's share of the scenario) and ran (cycle-start events). */
  plannedCycles: number;
  cycles: number;
  /** Its lowest and highest cycle id in the merged journal (null: it ran none). */
  firstCycle: number | null;
  lastCycle: number | null;
  /** How its runner ended ('unknown': no run-end). */
  status: RunStatus | 'unknown';
  /** Its store as its run-end recorded it (absent: no run-end, or one without the tally). */
  store?: StoreTally;
}

export interface RunStartEvent extends Base {
  type: 'run-start';
  runId: string;
  startedAt: string;
  scenario: Scenario;
  environment: Environment;
  /** Set when this run is one shard of a larger soak: it runs the cycle ids c with (c - 1) % count === index. */
  shard?: { index: number; count: number };
  /** Set on a run folder written by `soak merge`: the run ids it combines. */
  mergedFrom?: string[];
  /** Set on a run folder written by `soak merge`: each source run, in order (absent on merges made before it was). */
  sources?: SourceRun[];
  /** Set when the seed was derived from a nightly key (`soak run --seed-from <key>`): the key; the seed is scenario.seed. */
  seedKey?: string;
  /** Set on a run folder written by `soak demo`: every kill was typed by a person (or the page's button), none planned. */
  manualKills?: true;
  /** Set on a run folder written by `soak merge --force` over overlapping sources: why each pair overlaps. */
  forcedOverlap?: string[];
}

/** A runner picked up a run whose previous runner died (`soak run --resume`). */
export interface RunResumeEvent extends Base {
  type: 'run-resume';
  /** Process groups of the dead runner's hosts that were still alive and were killed. */
  killedGroups: number[];
  /** Cycles still to run (a run of several sessions at once: its (session, cycle) pairs still to run). */
  remaining: number;
  /** Processes of the hosts' kill lists (an adapter's detached sandbox) that were still alive and were killed. */
  killedDeclared?: number[];
}

/** Facts only a running target knows (accelerator chosen, image hash, QEMU version); merged into environment.target. */
export interface TargetInfoEvent extends Base {
  type: 'target-info';
  cycle: number;
  info: Record<string, string | number | boolean>;
}

/**
 * What a SIGKILL of the session must hit besides a host's process group (an exec adapter's detached sandbox: runsc's
 * sandbox and gofer), as the host last declared it; a runner picking up a dead runner's run kills what is still alive.
 */
export interface KillListEvent extends Base {
  type: 'kill-list';
  cycle: number;
  /** The host that declared it (its host-start pid). */
  host: number;
  /** That host's /proc start time: a resumed run kills no process that started before it (absent: older journals). */
  hostStartTime?: string;
  /** Each process (group: its whole group) with its start time; proven the adapter's own before it was journaled. */
  procs: DeclaredProcess[];
}

/** One process of a kill list: its PID, whether its whole process group is meant, and its start time (clock ticks). */
export interface DeclaredProcess {
  pid: number;
  group: boolean;
  startTime: string;
}

export interface HostStartEvent extends Base {
  type: 'host-start';
  cycle: number;
  pid: number;
  /**
   * standby: a warm standby host, started ahead of the kill it restores after; pool: one that read nothing of the
   * session before it (scenario `standby: pool`); clone: run/effects-clone.ts.
   */
  mode: 'boot' | 'restore' | 'standby' | 'pool' | 'clone';
}

/** A freshly booted session reached its first full heartbeat. */
export interface BootEvent extends Base {
  type: 'boot';
  /** The cycle it was booted for; a boot sample: the first cycle this runner runs after the samples. */
  cycle: number;
  bootMs: number;
  nonce: string;
  /** A boot sample (scenario bootSamples, run/boot-samples.ts): its id, 1-based; absent for the session's own boots. */
  sample?: number;
}

/** What a session host reports of one committed checkpoint (the host protocol's ckpt-commit carries the same). */
export interface CheckpointFacts {
  seq: number;
  step: number;
  pauseMs: number;
  writeMs: number;
  logicalBytes: number;
  storedBytes: number;
  chunks: number;
  newChunks: number;
  meta: Record<string, number | string>;
}

export interface CheckpointEvent extends Base, CheckpointFacts {
  type: 'checkpoint';
  cycle: number;
}

export interface CycleStartEvent extends Base {
  type: 'cycle-start';
  cycle: number;
  phase: KillPhase;
}

export interface KillEvent extends Base {
  type: 'kill';
  cycle: number;
  phase: KillPhase;
  observedPhase: KillPhase;
  /** Highest step the killed host reported (all its output, read to EOF). */
  atStep: number;
  nonce: string;
  lastCommittedSeq: number;
  lastCommittedStep: number;
  /** Sequence number of a checkpoint write in flight at the kill, if any. */
  inFlightSeq: number | null;
}

export interface RestoreEvent extends Base {
  type: 'restore';
  cycle: number;
  seq: number;
  step: number;
  restoreMs: number;
  /** Where the target read the checkpoint: `store`, `hot` (a local copy verified against the store's digest), or a fallback with why. */
  source?: string;
}

/** What the checker looked at after a restore (observation-event.ts). */
export interface ObservationEvent extends Base, ObservationEventFields {
  type: 'observation';
}

/** The outcome of one kill-and-resume cycle. */
export interface CycleEvent extends Base {
  type: 'cycle';
  cycle: number;
  phase: KillPhase;
  observedPhase: KillPhase;
  outcome: Outcome;
  /** Kill -> first verified heartbeat, ms (null when the session never resumed). */
  downtimeMs: number | null;
  killStep: number;
  restoredSeq: number | null;
  restoredStep: number | null;
  /** Work lost: steps between the restored checkpoint and the kill. */
  lostSteps: number | null;
  /** Kills that landed while a restore was running, before the final one succeeded. */
  restoreKills: number;
  violations: Violation[];
  /** Set when the outcome is indeterminate (absent in journals written before outcomes had causes). */
  cause?: IndeterminateCause | null;
}

/** How a runner invocation ended: every cycle run, stopped (Ctrl-C, SIGTERM), out of time, or aborted by an error. */
export type RunStatus = 'complete' | 'interrupted' | 'budget' | 'aborted';

export interface RunEndEvent extends Base {
  type: 'run-end';
  status: RunStatus;
  cycles: number;
  /** Why the run was aborted (status 'aborted' only): the error's one-line message. */
  reason?: string;
  /** The run's store once its last host was gone, as `soak store stats` counts it (absent: older runs, or unreadable). */
  store?: StoreTally;
  decided?: { cycle: number; by: string }; // --until-decided stopped it once decided: after this cycle, by this
}

/** Machine load over one window (core/machine-load.ts), sampled off the kill path; `cycle`: the one running then (0: none). */
export interface MachineLoadEvent extends Base, LoadSample {
  type: 'machine-load';
  cycle: number;
}

export type JournalEvent =
  | RunStartEvent
  | RunResumeEvent
  | TargetInfoEvent
  | HostStartEvent
  | KillListEvent
  | BootEvent
  | CheckpointEvent
  | CycleStartEvent
  | KillEvent
  | FaultEvent
  | HostCrashEvent
  | CheckpointStormEvent
  | MemoryPressureEvent
  | RestoreEvent
  | ObservationEvent
  | CycleEvent
  | RunEndEvent
  | MachineLoadEvent
  | EffectsEvent
  | GuestStateEvent;

/** Distributive Omit over the union, so each variant keeps its own fields. */
export type EventInput = JournalEvent extends infer E
  ? E extends JournalEvent
    ? Omit<E, 'schemaVersion' | 't'>
    : never
  : never;
