// The shape of an analysed run (summary.json and what reports and gates read). Produced only by analysis.ts.
import type { Environment } from './environment.js';
import type { CycleEvent } from './events.js';
import type { DistributionSummary } from './stats/distribution.js';

export const SUMMARY_SCHEMA_VERSION = 1;

/** Distribution of a sample in ms (n, min, p50, p90, p95, p99, max, mean); every field null when n = 0. */
export type Distribution = DistributionSummary;

/** One row of cycles.csv: a cycle outcome as journaled, with the violation codes joined by spaces. */
export type CycleRow = Omit<CycleEvent, 'schemaVersion' | 't' | 'type' | 'violations'> & { violations: string };

/** One committed checkpoint, for store-growth charts. */
export interface CheckpointRow {
  seq: number;
  cycle: number;
  step: number;
  pauseMs: number;
  writeMs: number;
  logicalBytes: number;
  storedBytes: number;
  cumLogicalBytes: number;
  cumStoredBytes: number;
}

export interface Summary {
  schemaVersion: typeof SUMMARY_SCHEMA_VERSION;
  runId: string;
  scenario: string;
  target: string;
  /** yyyy-mm-dd of the run start (UTC). */
  date: string;
  startedAt: string;
  seed: number;
  cycles: { total: number; resumed: number; failed: number; indeterminate: number };
  killResume: { successes: number; trials: number; wilson95: [number, number] | null };
  downtimeMs: Distribution;
  bootMs: Distribution;
  checkpointPauseMs: Distribution;
  checkpointWriteMs: Distribution;
  restoreMs: Distribution;
  lostSteps: { n: number; max: number | null; mean: number | null };
  /** Cycles whose kill landed during a checkpoint write, and how many of them resumed from the previous complete checkpoint. */
  tornCheckpoint: { trials: number; previousRestored: number };
  noncePreserved: { trials: number; preserved: number };
  dedup: { checkpoints: number; logicalBytes: number; storedBytes: number; ratio: number | null };
  violations: number;
  violationSamples: string[];
  /** The scenario was a negative control: the run is meant to produce violations (absent in older summaries). */
  negativeControl?: boolean;
  environment: Environment;
  /** Per-cycle and per-checkpoint rows (not in summary.json; written to cycles.csv and charts). */
}

/** Analysis output: the summary plus the rows reports draw from. */
export interface RunAnalysis {
  summary: Summary;
  cycles: CycleRow[];
  checkpoints: CheckpointRow[];
  /** Raw downtime samples in cycle order (ms). */
  downtimes: number[];
  /** The scenario's workload and checkpoint cadence (how much work one checkpoint interval may lose). */
  cadence?: { stepMs: number; checkpoint: { everyMs: number } };
}
