// Judge an analysed run against the numbered gates (shared by `soak run`, `soak gates` and `soak report`).
import { evaluateGates, gateEvidenceFromAnalysis, loadGates, overallVerdict } from '../gates.js';
import type { GateResult, Verdict } from '../gate-types.js';
import type { RunAnalysis } from '../summary-types.js';

export interface Judgement {
  gates: GateResult[];
  verdict: Verdict;
}

export function judge(analysis: RunAnalysis, gatesDir?: string): Judgement {
  const gates = evaluateGates(loadGates(gatesDir), analysis.summary, gateEvidenceFromAnalysis(analysis, analysis.cadence, analysis.summary.seed));
  return { gates, verdict: overallVerdict(gates) };
}

/** One line saying what the verdict means. */
export function verdictLine(j: Judgement): string {
  const count = (v: Verdict): number => j.gates.filter((g) => g.verdict === v).length;
  const parts = `${count('pass')} pass, ${count('fail')} fail, ${count('insufficient')} insufficient of ${j.gates.length} gates`;
  if (j.verdict === 'pass') return `verdict: PASS (${parts})`;
  if (j.verdict === 'fail') {
    const failed = j.gates.filter((g) => g.verdict === 'fail').map((g) => `#${g.id} ${g.name}`);
    return `verdict: FAIL (${parts}; failed: ${failed.join(', ')})`;
  }
  return `verdict: INSUFFICIENT DATA (${parts})`;
}
