// What judging one numbered gate produces; shared by gates.ts (producer) and the report (consumer).
import type { Verdict } from './verdict.js';
import type { Summary } from '../analysis/summary.js';

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
  /** The statistic the threshold names, as parsed at load (threshold.ts): what the charts and text show it as. */
  stat: Statistic;
  /** The threshold's operator and bar (in the unit of `value`), as parsed at load. */
  op: ThresholdOp;
  bound: number;
  /** The gate file's description and rationale (may be empty). */
  description: string;
  /** The figure the threshold was judged on (null when nothing was measured): for a rate, its Wilson bound. */
  value: number | null;
  /** What was observed: a rate's successes / trials; for every other kind the same as `value`. */
  observed: number | null;
  /** A rate's successes (the k of k/n); null for other kinds. */
  successes: number | null;
  /** Which figure the threshold was applied to: the point estimate, or the lower or upper end of the interval. */
  judged: 'point' | 'lower' | 'upper';
  /** The 95% interval around the observed value, when the metric has one. */
  interval: [number, number] | null;
  /**
   * A distribution statistic's one-sided 95% bounds [lower, upper] (each at 95% on its own; null: too few samples or
   * no raw samples), which confirm a point verdict or make it inconclusive; null for other kinds, a minimum or a maximum.
   */
  bounds: [number | null, number | null] | null;
  n: number;
  /** The smallest n the gate judges: the file's minN, raised for a quantile to what its order statistic needs. */
  minN: number;
  verdict: Verdict;
  /** A point-estimate verdict (pass or fail) that both one-sided 95% bounds agree with (see `bounds`). */
  solid: boolean;
  /** Human text beside the verdict, e.g. "n needed with zero failures: 59". */
  note: string;
  /**
   * Set on a timing gate (its metric measures a time: metrics.ts isTimeMetric) judged on a saturated machine: the
   * verdict as measured, and the saturation with its figures. `verdict` then differs from `measured` only when a
   * measured fail is reported inconclusive (saturated) (gates/verdict.ts, timingVerdict); absent otherwise.
   */
  saturated?: { measured: Verdict; reason: string };
  /**
   * The decision that stays valid however often the gate is looked at and whenever the run stops (gates/anytime.ts);
   * `verdict` is the fixed-n one, valid for a run whose length was fixed before it started. Absent in older reports.
   */
  anytime?: AnytimeDecision;
  /** Set on a run stopped when decided (gates/sequential.ts): the fixed-n verdict, shown beside `verdict`, not used. */
  fixedN?: Verdict;
}

/** A gate's decision that stays valid under continuous monitoring and optional stopping. */
export interface AnytimeDecision {
  decision: 'pass' | 'fail' | 'undecided';
  /**
   * e-process: a sequential test of the rate `rate` against `bar` at level alpha (stats/anytime.ts, gates/anytime.ts); gate-rule: the
   * gate's own rule, which looking early cannot bend (a count that only grows) or which is not a sampled rate (a ratio).
   */
  method: 'e-process' | 'gate-rule';
  /** Each side's error level: a wrong pass (or a wrong fail) happens with probability at most alpha. */
  alpha: number;
  /** What the trials are and what a success is, e.g. "kill trials that resumed", "downtimeMs samples < 1000". */
  rate: string;
  successes: number | null;
  trials: number | null;
  /** The rate's bar (a p95 gate: 0.95); null for the gate's own rule. */
  bar: number | null;
  /** The anytime-valid interval of the rate: each end one-sided at alpha; null for the gate's own rule. */
  interval: [number, number] | null;
  note: string;
}

/** Comparison operators a threshold may use. */
export type ThresholdOp = '<' | '<=' | '>' | '>=' | '==';

/**
 * The statistic a threshold names, parsed once at load (threshold.ts parseStatistic; statName writes it back):
 * a quantile (p95: q 0.95), a distribution's min, max or mean, an end of a rate's Wilson interval at a confidence level
 * in percent (wilson95.lo), a rate's failures or successes, a count, a ratio. Which metric kinds allow which: metrics.ts.
 */
export type Statistic =
  | { kind: 'quantile'; q: number }
  | { kind: 'min' }
  | { kind: 'max' }
  | { kind: 'mean' }
  | { kind: 'wilson'; level: number; side: 'lo' | 'hi' }
  | { kind: 'failures' }
  | { kind: 'successes' }
  | { kind: 'count' }
  | { kind: 'ratio' };

/** A threshold expression `<stat> <op> <number>`, parsed once at load. */
export interface Threshold {
  /** As written in the gate file, e.g. "wilson95.lo >= 0.95". */
  source: string;
  /** The statistic it names: { kind: 'quantile', q: 0.95 }, { kind: 'wilson', level: 95, side: 'lo' }, ... */
  stat: Statistic;
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
  /** A run of several sessions at once: each session's summary, the clusters its rates are judged by (clustered-rate.ts). */
  sessions?: readonly Partial<Summary>[];
}
