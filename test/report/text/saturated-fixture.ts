// A run measured on a saturated machine (load 5.5 on 2 cores) whose downtime gate fails its bar, judged by the timing
// rule (gates/judge.ts) with timing strict or not: for the CI outputs' tests (JUnit, job summary).
import { applyTiming, timingJudgement, type TimingJudgement } from '../../../harness/gates/judge.js';
import type { GateResult } from '../../../harness/gates/types.js';
import type { RunAnalysis } from '../../../harness/analysis/summary.js';
import { makeGates } from '../fixtures.js';
import { plantedSaturatedMerge } from '../planted-provenance.js';

/** The saturated analysis, its gates (gate 2 a downtime gate that failed as measured) and their timing judgement. */
export function saturatedRun(strict: boolean): { analysis: RunAnalysis; gates: GateResult[]; timing: TimingJudgement } {
  const analysis = plantedSaturatedMerge();
  const measured = makeGates(analysis).map((g) =>
    g.id === 2 ? { ...g, metric: 'downtimeMs', threshold: 'p95 < 10', bound: 10, verdict: 'fail' as const } : g,
  );
  const facts = { machineLoad: analysis.summary.machineLoad, strict };
  const gates = applyTiming(measured, facts);
  return { analysis, gates, timing: timingJudgement(gates, facts) };
}
