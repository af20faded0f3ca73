// Numbered release gates: judge each gate on a run summary. A rate is judged on its Wilson bound, a count on the count,
// a distribution statistic (p95, ...) on its point estimate, shown with its distribution-free 95% interval (metrics.ts).
// Combining verdicts and exit codes live in verdict.ts, the one lattice.
import { measure } from './metrics.js';
import { holds, violationIsFinal } from './threshold.js';
import type { Gate, GateEvidence, GateResult, Verdict } from './types.js';
import type { Summary } from '../analysis/summary.js';

export { defaultGatesDir, loadGates, parseGate } from './load.js';
export { formatGateTable } from './table.js';
export { gateEvidenceFromAnalysis } from './evidence.js';
export { exitCodeFor } from './verdict.js';

/** Judge one gate: n < minN is insufficient (a count already over a "<", "<=" or "==" bar fails: counts only grow). */
export function evaluateGate(base: Gate, summary: Partial<Summary>, evidence: GateEvidence = {}): GateResult {
  const override = summary.target !== undefined ? base.byTarget[summary.target] : undefined;
  const gate = override ? { ...base, ...override } : base;
  const m = measure(gate.metric, gate.threshold, summary, evidence);
  const { op, bound } = gate.threshold;
  const notes = [m.note];
  let verdict: Verdict;
  if (m.value === null) {
    verdict = 'insufficient';
    notes.push('nothing measured');
  } else if (holds(m.value, op, bound)) {
    verdict = m.lowerBoundOnly || m.n < gate.minN ? 'insufficient' : 'pass';
    if (m.n < gate.minN) notes.push(`needs n >= ${gate.minN}`);
  } else if (m.growsOnly && violationIsFinal(op)) {
    verdict = 'fail';
  } else if (m.n < gate.minN) {
    verdict = 'insufficient';
    notes.push(`needs n >= ${gate.minN}`);
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
    value: m.value,
    interval: m.interval,
    n: m.n,
    minN: gate.minN,
    verdict,
    note: notes.filter(Boolean).join('; '),
  };
}

/** Judge every gate on one summary, in gate order. */
export function evaluateGates(
  gates: readonly Gate[],
  summary: Summary | Partial<Summary>,
  evidence: GateEvidence = {},
): GateResult[] {
  return gates.map((g) => evaluateGate(g, summary, evidence));
}
