// Runs judged by the shipped gates (real titles, descriptions and notes) for the report's first screen: one that passes
// every gate, one that fails four of them (checker violations, slow resumes, failed resumes, a torn write), one too short.
import type { RunAnalysis } from '../../harness/analysis/summary.js';
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from '../../harness/gates/evaluate.js';
import type { GateResult } from '../../harness/gates/types.js';
import { summarize } from '../../harness/stats/distribution.js';
import { makeAnalysis } from './fixtures.js';

/** Which story the run tells. */
export type Story = 'pass' | 'fail' | 'insufficient';

/** Cycles that fail to resume in the failing run (1-based). */
export const FAILED_CYCLES = [7, 31, 52];
/** Cycles of the failing run that resumed slowly, slowest last: 1400, 1490, ... 2210 ms. */
export const SLOW_CYCLES = [5, 12, 19, 26, 33, 40, 47, 54, 61, 68];

/** The run and its gates, judged as `soak report` judges them (evidence from the analysis, the shipped gates/). */
export function storyRun(story: Story): { analysis: RunAnalysis; gates: GateResult[] } {
  const failing = story === 'fail';
  const analysis = makeAnalysis({
    cycles: story === 'insufficient' ? 20 : 80,
    seed: 5,
    scenario: `nightly-${story}`,
    date: '2025-06-04',
    failedCycles: failing ? FAILED_CYCLES : [],
    downtimeOverrides: new Map(failing ? SLOW_CYCLES.map((c, i) => [c, 1400 + 90 * i]) : []),
  });
  const boots = Array.from({ length: story === 'insufficient' ? 21 : 60 }, (_, i) => 600 + ((i * 37) % 300));
  analysis.summary.bootMs = summarize(boots);
  analysis.summary.bootSamples = boots.length - 1;
  analysis.samples = { bootMs: boots, restoreMs: [] };
  analysis.cadence = { stepMs: 100, checkpoint: { everyMs: 2000 } };
  const evidence = gateEvidenceFromAnalysis(analysis, analysis.cadence, analysis.summary.seed);
  return { analysis, gates: evaluateGates(loadGates(), analysis.summary, evidence) };
}
