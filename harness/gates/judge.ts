// Judge an analysed run against the numbered gates (shared by `soak run`, `soak gates` and `soak report`).
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from './evaluate.js';
import type { GateResult } from './types.js';
import {
  VERDICT_WORD,
  verdictFacts,
  verdictLevel,
  verdictOfLevel,
  type RunVerdict,
  type Verdict,
  type VerdictFacts,
} from './verdict.js';
import type { RunAnalysis } from '../analysis/summary.js';

/** The judged gates and the run's verdict from the lattice (verdict.ts). */
export interface Judgement {
  gates: GateResult[];
  verdict: RunVerdict;
  /** What the lattice read: gate verdicts, checker violations, adapter faults, negative control, trials. */
  facts: VerdictFacts;
  /** Set for a negative-control run: its verdict comes from whether the checker caught the planted fault. */
  control?: string;
}

/** Judge the gates; a negative-control run passes only if the checker found violations (the gates are shown as measured). */
export function judge(analysis: RunAnalysis, gatesDir?: string): Judgement {
  const s = analysis.summary;
  const gates = evaluateGates(loadGates(gatesDir), s, gateEvidenceFromAnalysis(analysis, analysis.cadence, s.seed));
  const { gates: _judged, ...run } = verdictFacts(s, gates);
  return judgement(gates, run);
}

/** The judgement of already evaluated gates on a run with these checker facts. */
export function judgement(gates: GateResult[], run: Omit<VerdictFacts, 'gates'>): Judgement {
  const facts: VerdictFacts = { ...run, gates };
  const verdict = verdictOfLevel(verdictLevel(facts));
  if (!facts.negativeControl || verdict === 'adapter-fault') return { gates, verdict, facts };
  const { violations, trials } = facts;
  const control =
    verdict === 'pass'
      ? `negative control: the checker caught the planted fault (${violations} violations in ${trials} cycles)`
      : `negative control: the checker found NO violation in ${trials} cycles; it cannot be trusted to catch this fault`;
  return { gates, verdict, facts, control };
}

/** One line saying what the verdict means. */
export function verdictLine(j: Judgement): string {
  const word = VERDICT_WORD[j.verdict].toUpperCase();
  if (j.control) return `verdict: ${word} (${j.control})`;
  const count = (v: Verdict): number => j.gates.filter((g) => g.verdict === v).length;
  const undecided = count('inconclusive') > 0 ? `${count('inconclusive')} inconclusive, ` : '';
  const parts = `${count('pass')} pass, ${count('fail')} fail, ${undecided}${count('insufficient')} insufficient of ${j.gates.length} gates`;
  if (j.verdict === 'adapter-fault') {
    const n = j.facts.adapterFaults ?? 0;
    return `verdict: ${word} (${n} adapter fault${n === 1 ? '' : 's'}, the first: ${j.facts.firstAdapterFault ?? ''}; ${parts})`;
  }
  if (j.verdict !== 'fail') return `verdict: ${word} (${parts})`;
  const failed = j.gates.filter((g) => g.verdict === 'fail').map((g) => `#${g.id} ${g.name}`);
  if (failed.length > 0) return `verdict: FAIL (${parts}; failed: ${failed.join(', ')})`;
  const v = j.facts.violations;
  return `verdict: FAIL (${parts}; the checker found ${v} consistency violation${v === 1 ? '' : 's'})`;
}
