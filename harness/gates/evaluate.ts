// Numbered release gates: judge each gate on a run summary. A rate is judged on its Wilson bound, a count on the count,
// a distribution statistic (p95, ...) on its point estimate, confirmed by its distribution-free one-sided 95% bounds: a
// point whose bounds straddle the bar is inconclusive. Combining verdicts and exit codes live in verdict.ts, the one lattice.
import path from 'node:path';
import { anytimeDecision } from './anytime.js';
import { minNForQuantileBound } from './distribution-interval.js';
import { isTimeMetric, measure, METRICS, type Measurement } from './metrics.js';
import { holds, statName, violationIsFinal } from './threshold.js';
import type { Gate, GateEvidence, GateResult, Statistic, Threshold, Verdict } from './types.js';
import { belowMinNFailNote, verdictBelowMinN } from './verdict.js';
import type { Summary } from '../analysis/summary.js';

export { defaultGatesDir, loadGates, parseGate } from './load.js';
export { gateEvidenceFromAnalysis } from './evidence.js';
export { exitCodeFor } from './verdict.js';

/**
 * The fewest samples a quantile threshold may be judged on: enough for the order statistic to bound the quantile on
 * the side the bar is on (one-sided 95%: "p95 <" needs 59, the largest of 59 samples bounding p95 from above). Null
 * for every other stat.
 */
export function quantileMinN(threshold: Threshold): number | null {
  const { stat, op } = threshold;
  if (stat.kind !== 'quantile') return null;
  const { q } = stat;
  if (op === '==') return Math.max(minNForQuantileBound(q, 'upper'), minNForQuantileBound(q, 'lower'));
  return minNForQuantileBound(q, op === '<' || op === '<=' ? 'upper' : 'lower');
}

/** What the one-sided 95% bounds say about the bar: pass or fail when both agree, null when they straddle it or are unknown. */
function intervalSays(ends: [number | null, number | null], { op, bound }: Threshold): 'pass' | 'fail' | null {
  const lo = ends[0] ?? Number.NEGATIVE_INFINITY; // an unbounded end reaches as far as it can
  const hi = ends[1] ?? Number.POSITIVE_INFINITY;
  const atLo = holds(lo, op, bound);
  const atHi = holds(hi, op, bound);
  if (atLo && atHi) return 'pass';
  return !atLo && !atHi ? 'fail' : null;
}

/** Whether a 95% interval (or one-sided bounds; null: unbounded) lies strictly beyond the bar on its failing side. */
function beyondBar(ends: readonly [number | null, number | null], { op, bound }: Threshold): boolean {
  const lo = ends[0] ?? Number.NEGATIVE_INFINITY;
  const hi = ends[1] ?? Number.POSITIVE_INFINITY;
  if (lo <= bound && bound <= hi) return false; // reaching or touching the bar is not solid
  return !holds(lo, op, bound) && !holds(hi, op, bound);
}

/** A sample's minimum or maximum already past a bar it can only move further from (a max over "<", a min under ">"). */
function extremeIsFinal(stat: Statistic, op: Threshold['op'], passes: boolean): boolean {
  if (passes) return false;
  return stat.kind === 'max' ? op === '<' || op === '<=' : stat.kind === 'min' && (op === '>' || op === '>=');
}

/** The verdict of a distribution statistic judged on its point estimate and confirmed by its interval. */
function judgeDistribution(
  m: Measurement,
  value: number,
  t: Threshold,
  fileMinN: number,
  minN: number,
  notes: string[],
): { verdict: Verdict; solid: boolean } {
  const point: Verdict = holds(value, t.op, t.bound) ? 'pass' : 'fail';
  if (m.n < minN) {
    notes.push(
      m.n < fileMinN
        ? `needs n >= ${minN}`
        : `${statName(t.stat)} needs n >= ${minN} (the fewest samples whose order statistics bound it at 95% on the side of the bar)`,
    );
    if (m.ends === null) {
      const final = extremeIsFinal(t.stat, t.op, point === 'pass');
      if (final)
        notes.push(`the sample ${statName(t.stat)} is already beyond the bar and more samples only move it further`);
      return { verdict: verdictBelowMinN(final), solid: false };
    }
    const verdict = verdictBelowMinN(beyondBar(m.ends, t));
    if (verdict === 'fail') notes.push(belowMinNFailNote(m.n, minN));
    return { verdict, solid: verdict === 'fail' };
  }
  if (m.ends === null) return { verdict: point, solid: false }; // a minimum or maximum: the sample's own extreme
  const says = intervalSays(m.ends, t);
  if (says === point) return { verdict: says, solid: true };
  notes.push(`the point ${point === 'pass' ? 'passes' : 'fails'} but its 95% bounds reach across the bar`);
  return { verdict: 'inconclusive' as const, solid: false };
}

/**
 * The byTarget key a run is judged under: the runtime an exec adapter declared in `describe` (environment.target
 * .runtimeId, e.g. gvisor) when the gate has thresholds for it, else the target's name (process, microvm, exec).
 */
export function byTargetKey(base: Gate, summary: Partial<Summary>): string | undefined {
  const runtime = summary.environment?.target.runtimeId;
  if (typeof runtime === 'string' && runtime in base.byTarget) return runtime;
  return summary.target !== undefined && summary.target in base.byTarget ? summary.target : undefined;
}

/**
 * Why a timing bar may not be this runtime's: an exec adapter's run judged on the gate file's default bar (the process
 * target's budget) because the file has no byTarget entry for its runtime. Null when the bar was set for it.
 */
export function defaultBarNote(base: Gate, key: string | undefined, summary: Partial<Summary>): string | null {
  if (key !== undefined || summary.target !== 'exec' || !isTimeMetric(base.metric)) return null;
  const runtime = summary.environment?.target.runtimeId;
  const name = typeof runtime === 'string' ? runtime : 'exec';
  return `bar not set for runtime ${name}: judged on the default (the process target's budget); set its own with byTarget.${name} in ${path.basename(base.file)}`;
}

/**
 * Judge one gate: n < minN is never a pass; it is a fail when the 95% interval is wholly beyond the bar (verdict.ts,
 * verdictBelowMinN) or a count is already over a "<", "<=" or "==" bar (counts only grow), else insufficient.
 */
export function evaluateGate(base: Gate, summary: Partial<Summary>, evidence: GateEvidence = {}): GateResult {
  const key = byTargetKey(base, summary);
  const override = key !== undefined ? base.byTarget[key] : undefined;
  const gate = override ? { ...base, ...override } : base;
  const m = measure(gate.metric, gate.threshold, summary, evidence);
  const { op, bound } = gate.threshold;
  const minN = Math.max(gate.minN, (m.kind === 'distribution' ? quantileMinN(gate.threshold) : null) ?? 0);
  const notes = [m.note, defaultBarNote(base, key, summary) ?? ''];
  let verdict: Verdict;
  let solid = false;
  if (m.value === null) {
    verdict = 'insufficient';
    notes.push('nothing measured');
  } else if (m.kind === 'distribution') {
    ({ verdict, solid } = judgeDistribution(m, m.value, gate.threshold, gate.minN, minN, notes));
  } else if (holds(m.value, op, bound)) {
    verdict = m.lowerBoundOnly || m.n < gate.minN ? 'insufficient' : 'pass';
    if (m.n < gate.minN) notes.push(`needs n >= ${gate.minN}`);
  } else if (m.growsOnly && violationIsFinal(op)) {
    verdict = 'fail';
  } else if (m.n < gate.minN) {
    // a rate judged on a Wilson end: below minN it fails only when the whole interval is beyond the bar
    const judgedOnInterval = m.kind === 'rate' && m.judged !== 'point' && m.interval !== null;
    verdict = verdictBelowMinN(judgedOnInterval && m.interval !== null && beyondBar(m.interval, gate.threshold));
    solid = verdict === 'fail';
    notes.push(`needs n >= ${gate.minN}`, solid ? belowMinNFailNote(m.n, gate.minN) : '');
  } else {
    verdict = m.lowerBoundOnly ? 'insufficient' : 'fail';
  }
  return {
    id: gate.id,
    name: gate.name,
    title: gate.title,
    metric: gate.metric,
    kind: m.kind,
    unit: m.unit,
    threshold: gate.threshold.source,
    stat: gate.threshold.stat,
    op,
    bound,
    description: gate.description,
    value: m.value,
    observed: m.observed,
    successes: m.successes,
    judged: m.judged,
    interval: m.interval,
    bounds: m.kind === 'distribution' ? m.ends : null,
    n: m.n,
    minN,
    verdict,
    solid,
    note: notes.filter(Boolean).join('; '),
    anytime: anytimeDecision(gate.metric, gate.threshold, m, evidence, verdict),
  };
}

/** Judge every gate on one summary, in gate order. */
export function evaluateGates(
  gates: readonly Gate[],
  summary: Summary | Partial<Summary>,
  evidence: GateEvidence = {},
): GateResult[] {
  // a gate on a metric the run cannot speak to (effects, on a run that emitted none) is left out, not "insufficient"
  return gates
    .filter((g) => METRICS[g.metric]?.applies?.(summary) ?? true)
    .map((g) => evaluateGate(g, summary, evidence));
}
