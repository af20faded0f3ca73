// Everything a report says, computed once from the analysis and gates; the HTML page and summary.md both render this.
import type { GateResult } from '../gates/types.js';
import type { RunAnalysis, Summary } from '../analysis/summary.js';
import { environmentRows, restoreSourceRow, resumeHostRow } from './environment-rows.js';
import { downtimeQuantiles, findings } from './findings.js';
import { durabilityLimits, scopeLimitations } from './limitations.js';
import type { QuantileEstimate } from '../stats/quantile-ci.js';
import { redactEnvironment } from './redact.js';
import { indeterminateText, type IndeterminateText } from './indeterminate.js';
import { reportVerdict, type ReportVerdict } from '../gates/verdict.js';
import { GATE_RULES } from './gate-rules.js';
import type { Baseline } from './baseline/read-baseline.js';
import { sinceLast, type SinceLast } from './baseline/since-last.js';
import { machineLoadRows, provenanceLine, saturationBanner, sourceRows } from './provenance.js';
import { nextSteps, type NextStep } from './next-steps.js';
import { timingJudgement, type TimingJudgement } from '../gates/judge.js';
import { guestStateLimits, verdictScope } from './guest-state.js';

/** The report's content as plain data (strings unescaped: each renderer escapes for its format). */
export interface ReportModel {
  /** The summary with its environment redacted: the only form any output sees. */
  summary: Summary;
  gates: GateResult[];
  verdict: ReportVerdict;
  /** The sentence that opens the verdict: what it covers and what it does not (guest-state.ts). */
  scope: string;
  findings: string[];
  quantiles: QuantileEstimate[];
  environment: Array<[string, string]>;
  durability: string[];
  /** The measured guest-state limits ("tmp-file ...: lost in 20/20 resumes"), in "Durability limits". */
  guestState: string[];
  limitations: string[];
  /** How the gates are judged (the rule for intervals and minimum n). */
  gateRules: readonly string[];
  /** Unjudged cycles by cause, the run-did-not-complete notice, the too-many-indeterminate warning. */
  indeterminate: IndeterminateText;
  /** The comparison with the previous report (`soak report --baseline`); absent without one. */
  sinceLast?: SinceLast;
  /** The first line: run status, planned vs run cycles, merged sources. */
  provenance: string;
  /** The saturated-machine banner shown beside the verdict (null: not saturated, or no load samples). */
  saturation: string | null;
  /** The machine's saturation and what it did to the timing gates (the judgement's; summary.json `timing`). */
  timing: TimingJudgement;
  /** A merged run's source runs (no rows for a single run). */
  sources: ReturnType<typeof sourceRows>;
  /** What to do next, most severe first (the first screen and the top of summary.md). */
  nextSteps: NextStep[];
}

/**
 * Build the model; gates are sorted by id; with a baseline, the since-last-report comparison. `timing` is the
 * judgement's (judge.ts); without it, the one of gates judged with timing not strict.
 */
export function buildModel(
  analysis: RunAnalysis,
  gates: readonly GateResult[],
  baseline?: Baseline,
  timing?: TimingJudgement,
): ReportModel {
  const summary: Summary = { ...analysis.summary, environment: redactEnvironment(analysis.summary.environment) };
  const clean: RunAnalysis = { ...analysis, summary };
  const sortedGates = [...gates].sort((a, b) => a.id - b.id);
  const verdict = reportVerdict(summary, sortedGates);
  const timingOf = timing ?? timingJudgement(sortedGates, { machineLoad: summary.machineLoad, strict: false });
  return {
    summary,
    gates: sortedGates,
    verdict,
    scope: verdictScope(summary),
    findings: findings(clean),
    quantiles: downtimeQuantiles(clean),
    environment: [
      ...environmentRows(summary.environment, summary.target),
      resumeHostRow(summary.standby),
      ...[restoreSourceRow(summary.restoreSources)].filter((r) => r !== null),
      ...machineLoadRows(summary),
    ],
    durability: durabilityLimits(clean),
    guestState: guestStateLimits(summary.guestState),
    limitations: scopeLimitations(clean, sortedGates),
    gateRules: GATE_RULES,
    indeterminate: indeterminateText(summary),
    ...(baseline ? { sinceLast: sinceLast(baseline, sortedGates, analysis.downtimes) } : {}),
    provenance: provenanceLine(summary),
    saturation: saturationBanner(summary, timingOf),
    timing: timingOf,
    sources: sourceRows(summary),
    nextSteps: nextSteps(summary, sortedGates, verdict.level, analysis.cycles),
  };
}
