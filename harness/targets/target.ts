// The one interface every system under test implements: boot, checkpoint, restore, heartbeat, destroy.
import type { Heartbeat } from '../check/heartbeat.js';
import type { ProbeLine } from '../check/survival.js';
import type { KillEntry } from '../core/kill-guard.js';
import type { CheckpointSink, CheckpointSource } from '../store/types.js';
import type { PhaseMarks } from './phase-marks.js';

/** What a checkpoint call measured. `step` is the step the captured state describes (memory's step under skew). */
export interface CheckpointResult {
  step: number;
  /** How long the agent/guest was frozen, ms. */
  pauseMs: number;
  /** Free-form facts the target wants recorded with the checkpoint (e.g. guest RAM size, stream size). */
  meta: Record<string, number | string>;
}

export interface CheckpointOptions {
  /** Negative control: capture the filesystem, then memory/tool state this many ms later, without pausing in between. */
  skewMs: number;
}

/** Facts about the target for the report's tested-environment section. */
export type TargetInfo = Record<string, string | number | boolean>;

export interface Target {
  readonly kind: string;
  /** Fresh boot: new workspace, new boot nonce. Resolves once the agent is running. */
  boot(): Promise<void>;
  /** Freeze, capture state into `sink` (parts may also be written after unfreezing, from a capture made while frozen). */
  checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult>;
  /** Rebuild the session from a committed checkpoint and resume it. Resolves once the agent is running. */
  restore(source: CheckpointSource): Promise<void>;
  /** Register a heartbeat listener; heartbeats flow from boot/restore until destroy. */
  onHeartbeat(listener: (hb: Heartbeat) => void): void;
  /**
   * Optional: be told whenever the processes outside the host's group change (exec adapters of detaching runtimes),
   * each proven the target's own and identified by its start time; the list replaces the previous one.
   */
  onKillList?(listener: (procs: KillEntry[]) => void): void;
  /**
   * Optional: be told each line of the guest-state probe (check/survival.ts) when the target runs one (targetOptions
   * `probe`): `ready` after its setup, `examined` once after each restore, `error` when it could not.
   */
  onProbe?(listener: (line: ProbeLine) => void): void;
  /** Optional: be told when the target breaks down outside any call (an exec adapter's protocol fault): fatal. */
  onFault?(listener: (err: Error) => void): void;
  /**
   * Optional, for a warm standby host: pre-start whatever a later boot() or restore() would start (processes, a VMM
   * waiting for incoming state), so that call only hands over the state. Called at most once, before either.
   */
  warmUp?(): Promise<void>;
  /** Optional: when each phase of the last restore ended (performance.now() ms), for the host's restore timeline. */
  restoreMarks?(): PhaseMarks;
  /** Optional: where the last restore read the checkpoint (`store`, `hot`: a verified local copy, or a fallback + why). */
  restoreSource?(): string | undefined;
  /** Optional: the state the last checkpoint() captured was committed to the store as checkpoint `seq`. */
  committed?(seq: number): Promise<void>;
  /** Ask for a full heartbeat as soon as possible. */
  requestFullHeartbeat(): void;
  /** Stop everything the target started and remove its scratch files. */
  destroy(): Promise<void>;
  describe(): TargetInfo;
}

/** Everything a target constructor gets from the host. */
export interface TargetContext {
  /** Private scratch dir of this host instance (0700); the target may create anything under it. */
  workDir: string;
  /** Directory that survives host restarts within one session (workspace lives here for the process target). */
  sessionDir: string;
  /** Workload step interval, ms. */
  stepMs: number;
  /** Target-specific options from the scenario file (validated by the target). */
  options: Record<string, unknown>;
}
