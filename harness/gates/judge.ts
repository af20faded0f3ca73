// Judge an analysed run against the numbered gates (shared by `soak run`, `soak gates` and `soak report`).
import { evaluateGates, gateEvidenceFromAnalysis, loadGates, overallVerdict } from './evaluate.js';
import type { GateResult, Verdict } from './types.js';
import type { RunAnalysis } from '../analysis/summary.js';

export interface Judgement {
  gates: GateResult[];
  verdict: Verdict;
  /** Set for a negative-control run: its verdict comes from whether the checker caught the planted fault. */
  control?: string;
}

/** Judge the gates; a negative-control run passes only if the checker found violations (the gates are shown as measured). */
export function judge(analysis: RunAnalysis, gatesDir?: string): Judgement {
  const s = analysis.summary;
  const gates = evaluateGates(loadGates(gatesDir), s, gateEvidenceFromAnalysis(analysis, analysis.cadence, s.seed));
  if (!s.negativeControl) return { gates, verdict: overallVerdict(gates) };
  const trials = s.killResume.trials;
  const verdict: Verdict = s.violations > 0 ? 'pass' : trials === 0 ? 'insufficient' : 'fail';
  const control =
    verdict === 'pass'
      ? `negative control: the checker caught the planted fault (${s.violations} violations in ${trials} cycles)`
      : `negative control: the checker found NO violation in ${trials} cycles; it cannot be trusted to catch this fault`;
  return { gates, verdict, control };
}

/** One line saying what the verdict means. */
export function verdictLine(j: Judgement): string {
  if (j.control)
    return `verdict: ${j.verdict === 'pass' ? 'PASS' : j.verdict === 'fail' ? 'FAIL' : 'INSUFFICIENT DATA'} (${j.control})`;
  const count = (v: Verdict): number => j.gates.filter((g) => g.verdict === v).length;
  const parts = `${count('pass')} pass, ${count('fail')} fail, ${count('insufficient')} insufficient of ${j.gates.length} gates`;
  if (j.verdict === 'pass') return `verdict: PASS (${parts})`;
  if (j.verdict === 'fail') {
    const failed = j.gates.filter((g) => g.verdict === 'fail').map((g) => `#${g.id} ${g.name}`);
    return `verdict: FAIL (${parts}; failed: ${failed.join(', ')})`;
  }
  return `verdict: INSUFFICIENT DATA (${parts})`;
}
