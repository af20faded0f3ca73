// What judging one numbered gate produces; shared by gates.ts (producer) and the report (consumer).
import type { Verdict } from './verdict.js';

export type { Verdict } from './verdict.js';

/** The shape of a metric, which decides the stats a threshold may name and how its value reads. */
export type MetricKind = 'rate' | 'count' | 'ratio' | 'distribution';

export interface GateResult {
  /** Gate number, from the file name gates/NN-name.yaml. */
  id: number;
  name: string;
  title: string;
  metric: string;
  /** The metric's kind, from the metrics table (metrics.ts). */
  kind: MetricKind;
  /** Unit of `value` and `interval`: "ms", "%" (a proportion 0..1, shown as a percentage), "x", or what a count counts. */
  unit: string;
  /** The threshold expression as written, e.g. "p95 < 2000" or "wilson95.lo >= 0.95". */
  threshold: string;
  /** The measured value the threshold was judged on (null when nothing was measured). */
  value: number | null;
  /** The interval around the measured value, when the metric has one. */
  interval: [number, number] | null;
  n: number;
  minN: number;
  verdict: Verdict;
  /** Human text beside the verdict, e.g. "n needed with zero failures: 59". */
  note: string;
}

/** Comparison operators a threshold may use. */
export type ThresholdOp = '<' | '<=' | '>' | '>=' | '==';

/** A threshold expression `<stat> <op> <number>`, parsed once at load. */
export interface Threshold {
  /** As written in the gate file, e.g. "wilson95.lo >= 0.95". */
  source: string;
  /** Normalised statistic name: p95, count, ratio, wilson95.lo, failures... */
  stat: string;
  op: ThresholdOp;
  bound: number;
}

/** One validated gate file gates/NN-name.yaml. */
export interface Gate {
  id: number;
  /** The name part of the file name (e.g. "boot-time"). */
  name: string;
  file: string;
  title: string;
  metric: string;
  threshold: Threshold;
  minN: number;
  description: string;
  /** Per-target overrides (e.g. a micro-VM under TCG resumes slower than a process tree), keyed by target name. */
  byTarget: Record<string, { threshold: Threshold; minN: number }>;
}

/** Extra inputs beyond summary.json that sharpen a verdict; every field optional. */
export interface GateEvidence {
  /** Raw samples (ms) per distribution metric (e.g. downtimeMs), for the intervals of quantiles (order statistics) and means (bootstrap). */
  samples?: Partial<Record<string, ArrayLike<number>>>;
  /** Resumed cycles that restored something older than the last complete checkpoint at the kill (exact count from analysis). */
  lostBeyondCheckpoint?: number;
  /** Lost steps per resumed cycle (null where not measured), judged against maxLostSteps when lostBeyondCheckpoint is absent. */
  lostStepsPerCycle?: readonly (number | null)[];
  /** Most steps a cycle may lose and still be "within one checkpoint interval". */
  maxLostSteps?: number;
  /** Seed for bootstrap intervals of means (default 1). */
  seed?: number;
}
