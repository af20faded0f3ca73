// Gates judged for real on a synthetic run, plus one planted case: a downtime p95 bar placed between its one-sided 95%
// bounds, so the point passes while the bounds reach across the bar (inconclusive at 95%).
import { evaluateGates, gateEvidenceFromAnalysis, loadGates, parseGate } from '../../harness/gates/evaluate.js';
import type { Gate, GateResult } from '../../harness/gates/types.js';
import type { RunAnalysis } from '../../harness/analysis/summary.js';

/** Parse one gate file's text or throw. */
function gate(text: string): Gate {
  const problems: string[] = [];
  const g = parseGate(text, '09-straddle.yaml', problems);
  if (g === null) throw new Error(problems.join('\n'));
  return g;
}

/** The shipped gates judged on `analysis`, and gate 9: a p95 bar between the bounds of the run's own downtime p95. */
export function plantedGates(analysis: RunAnalysis): GateResult[] {
  const evidence = gateEvidenceFromAnalysis(analysis, analysis.cadence, analysis.summary.seed);
  const probe = evaluateGates(
    [gate('id: 9\ntitle: probe\nmetric: downtimeMs\nthreshold: p95 < 1e9\nminN: 1\n')],
    analysis.summary,
    evidence,
  )[0]!;
  const [lo, hi] = probe.bounds ?? [null, null];
  if (lo === null || hi === null || probe.value === null) throw new Error('the run is too small to bound its p95');
  const bar = Math.round(((probe.value + hi) / 2) * 10) / 10; // above the point, below the upper bound
  const straddle = gate(
    `id: 9\ntitle: Downtime p95 near its bar\nmetric: downtimeMs\nthreshold: p95 < ${bar}\nminN: 30\ndescription: A bar planted inside the interval.\n`,
  );
  return evaluateGates([...loadGates(), straddle], analysis.summary, evidence);
}
