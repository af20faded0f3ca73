// The shape of an analysed run (summary.json and what reports and gates read). Produced only by accumulator.ts.
import type { EffectsSummary } from './effects-tally.js';
import type { GuestStateSummary } from './guest-state-tally.js';
import type { HostCrashSummary } from './host-crash-tally.js';
import type { CheckpointStormSummary } from './checkpoint-storm-tally.js';
import type { MemoryPressureSummary } from './memory-pressure-tally.js';
import type { WorkSummary } from './work-tally.js';
import type { Environment } from '../core/environment.js';
import type { CauseCode, CycleEvent, RunEndEvent, RunStatus, SourceRun } from '../journal/events.js';
import type { MachineLoadSummary } from './machine-load.js';
import type { DistributionSummary } from '../stats/distribution.js';

export const SUMMARY_SCHEMA_VERSION = 1;

/** Distribution of a sample in ms (n, min, p50, p90, p95, p99, max, mean); every field null when n = 0. */
export type Distribution = DistributionSummary;

/**
 * One row of cycles.csv: a cycle outcome as journaled, with the violation codes joined by spaces and the code of an
 * indeterminate outcome's cause ('' when it has none).
 */
export type CycleRow = Omit<CycleEvent, 'schemaVersion' | 't' | 'type' | 'session' | 'violations' | 'cause'> & {
  violations: string;
  /** Absent or '' when the outcome has no cause. */
  cause?: CauseCode | '';
};

/** One committed checkpoint as analysis keeps it (journal order; store-growth charts sum the bytes up). */
export interface CheckpointRow {
  seq: number;
  pauseMs: number;
  writeMs: number;
  logicalBytes: number;
  storedBytes: number;
}

/**
 * Rows stored as columns, one per field: numbers in a Float64Array (null as NaN: JSON has no NaN, so the two never
 * mix), other values in an array. A million rows cost a few arrays instead of a million objects.
 */
export type Columns<Row> = {
  readonly [K in keyof Row]-?: Row[K] extends number | null ? Float64Array : readonly Row[K][];
} & { readonly length: number };

/** Cycle outcomes in cycle order (cycleRow() in tables.ts reads one back as a CycleRow). */
export type CycleTable = Columns<CycleRow>;

/** Committed checkpoints in journal order. */
export type CheckpointTable = Columns<CheckpointRow>;

export interface Summary {
  schemaVersion: typeof SUMMARY_SCHEMA_VERSION;
  runId: string;
  scenario: string;
  target: string;
  /** yyyy-mm-dd the report is dated: the night key (seedKey) when it is a date, else the run start's UTC day. */
  date: string;
  startedAt: string;
  seed: number;
  /** The nightly key the seed was derived from (`soak run --seed-from`); absent when the seed was given directly. */
  seedKey?: string;
  /**
   * indeterminate: cycles the harness or machine could not judge (journaled as indeterminate, or started and never
   * finished); they count in no success rate. causes: how many of them had each cause ('unfinished': no outcome).
   */
  cycles: { total: number; resumed: number; failed: number; indeterminate: number };
  /** Indeterminate cycles by cause, with a few of their messages (absent in older summaries). */
  indeterminate?: { causes: Partial<Record<CauseCode | 'unfinished', number>>; samples: string[] };
  /** How the run's last runner ended (absent: older summaries, or a run folder with no run-end: the runner died). */
  runStatus?: {
    status: RunStatus | 'unknown';
    reason?: string;
    /** A --until-decided run: judged on its gates' anytime-valid decisions; `decided` says when and by what it stopped. */
    untilDecided?: boolean;
    decided?: RunEndEvent['decided'];
  };
  killResume: { successes: number; trials: number; wilson95: [number, number] | null };
  downtimeMs: Distribution;
  bootMs: Distribution;
  /** How many of bootMs's n are boot samples (scenario bootSamples), the rest session boots (absent in older summaries). */
  bootSamples?: number;
  checkpointPauseMs: Distribution;
  checkpointWriteMs: Distribution;
  restoreMs: Distribution;
  lostSteps: { n: number; max: number | null; mean: number | null };
  /** Cycles whose kill landed during a checkpoint write, and how many of them resumed from the previous complete checkpoint. */
  tornCheckpoint: { trials: number; previousRestored: number };
  noncePreserved: { trials: number; preserved: number };
  /**
   * counted 'store': checkpoints, bytes and ratio are the run's stores' when the runner ended, as `soak store stats`
   * counts them (committed = checkpoints). counted 'journal' (no store tally in run-end: older runs, merges): the
   * journaled commits and their bytes, committed = journaled plus the sequence gaps, a lower bound. journaled: the
   * checkpoints the journal recorded (pause and write times are theirs). committed, journaled, counted: absent in older summaries.
   */
  dedup: {
    checkpoints: number;
    logicalBytes: number;
    storedBytes: number;
    ratio: number | null;
    committed?: number;
    journaled?: number;
    counted?: 'store' | 'journal';
  };
  /** Consistency violations the checker (or the runner, outside it) found; adapter faults are counted apart. */
  violations: number;
  violationSamples: string[];
  /**
   * Adapter faults (an exec adapter broke the protocol: exit 5): cycles failed with `adapter-fault`, plus a runner that
   * ended on one at a boot; the first 10 messages. Absent in older summaries.
   */
  adapterFaults?: { count: number; samples: string[] };
  /**
   * The cycles judged again from their journaled observations by this build's checker: how many, how many agree with
   * the journaled verdict, and the (first 20) cycles whose verdict changed; the summary counts the re-checked
   * verdicts. Absent in older summaries.
   */
  recheck?: { rechecked: number; agreed: number; changed: number; changedCycles: number[] };
  /** The scenario was a negative control: the run is meant to produce violations (absent in older summaries). */
  negativeControl?: boolean;
  /**
   * Resumes were handed to a warm standby host (scenario `standby: true`), or to a pool host that read nothing of the
   * session ahead (`pool`); false: a cold host per resume (absent in older summaries).
   */
  standby?: boolean | 'pool';
  /**
   * Restores by where the target read the checkpoint: `store`, `hot` (a local copy whose every part hashed to the
   * store's part digest), or the store after a hot copy was refused, with why. Absent: the target does not say.
   */
  restoreSources?: Record<string, number>;
  /** Every kill was typed by a person (a `soak demo` run), none planned by the nemesis (absent: a soak). */
  manualKills?: boolean;
  environment: Environment;
  /** Cycles the run planned: the scenario's, a shard's share, or a merge's sources summed (absent in older summaries). */
  plannedCycles?: number;
  /** A merged run's source runs: machine, seed, cycle range, status (absent for a single run). */
  sources?: SourceRun[];
  /** Shards of a merged soak no source stands for (0-based index of count): planned, never run (absent: none). */
  missingShards?: { index: number; count: number }[];
  /** A merge forced over overlapping sources (`soak merge --force`): why each pair overlaps (absent: not forced). */
  forcedOverlap?: string[];
  /** The machine load sampled through the run, and whether it was saturated (absent: no samples journaled). */
  machineLoad?: MachineLoadSummary;
  /**
   * The run's span, ms: the latest run-end or machine-load time its journal holds (one run: its run-end; a merge: its
   * longest source's last load sample). Absent when there is none (a journal older than machine-load events).
   */
  elapsedMs?: number;
  /** The run's external effects per key discipline (analysis/effects-tally.ts); absent when it emitted none. */
  effects?: EffectsSummary;
  /** What the run's resumes kept of the guest state, per class (analysis/guest-state-tally.ts); absent: not probed. */
  guestState?: GuestStateSummary;
  /** A run of several sessions at once (scenario sessions > 1): each session's tallies (absent: one session). */
  sessions?: SessionsSummary;
  /** The host crashes of a run of several sessions (analysis/host-crash-tally.ts); absent: none journaled. */
  hostCrashes?: HostCrashSummary;
  /** The checkpoint storms of a run of several sessions (analysis/checkpoint-storm-tally.ts); absent: none journaled. */
  checkpointStorms?: CheckpointStormSummary;
  /** The memory squeezes of a run (analysis/memory-pressure-tally.ts); absent: none journaled. */
  memoryPressure?: MemoryPressureSummary;
  /** The coding workload at the resumes (analysis/work-tally.ts); absent: no resumed state carried its account. */
  work?: WorkSummary;
}

/** Each session's cycles, kill-and-resume rate and dedup, and the store's pooled dedup beside the sessions' mean. */
export interface SessionsSummary {
  count: number;
  rows: {
    session: number;
    /** The session's own seed (scenario/sessions.ts sessionSeed): its kill plan. */
    seed: number;
    cycles: Summary['cycles'];
    killResume: Summary['killResume'];
    violations: number;
    violationSamples: string[];
    /** Its checkpoints' logical and stored bytes as journaled (stored: what it added to the shared store). */
    dedup: { logicalBytes: number; storedBytes: number; ratio: number | null };
  }[];
  /**
   * pooledRatio: the run's store (every session's logical bytes over the bytes the shared store holds); apartBytes:
   * what stores of their own would hold (each session's needed chunks counted once per session; null: not recorded);
   * apartRatio: the logical bytes over those; sharedSaving: apartBytes / stored; meanSessionRatio: the rows' mean.
   */
  dedup: {
    pooledRatio: number | null;
    apartBytes: number | null;
    apartRatio: number | null;
    sharedSaving: number | null;
    meanSessionRatio: number | null;
  };
}

/** Analysis output: the summary plus the per-cycle and per-checkpoint rows reports draw from (not in summary.json). */
export interface RunAnalysis {
  summary: Summary;
  cycles: CycleTable;
  checkpoints: CheckpointTable;
  /** Raw downtime samples in cycle order (ms). */
  downtimes: number[];
  /** Raw boot and restore times in journal order (ms): one per boot / restore, for the gates' order-statistic intervals. */
  samples?: { bootMs: ArrayLike<number>; restoreMs: ArrayLike<number> };
  /** The scenario's workload and checkpoint cadence (how much work one checkpoint interval may lose). */
  cadence?: { stepMs: number; checkpoint: { everyMs: number } };
  /** Each session's own analysis, for a run of several sessions at once (gates are judged in each too). */
  perSession?: RunAnalysis[];
}
