// Judge an analysed run against the numbered gates (shared by `soak run`, `soak gates`, `soak report` and `soak
// watch`): evaluate each gate, apply the timing rule of a saturated machine (verdict.ts timingVerdict) to the timing
// gates, and combine the verdicts in the lattice.
import type { AnytimeDecision } from './anytime.js';
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from './evaluate.js';
import { isTimeMetric } from './metrics.js';
import { judgedOnAnytime } from './sequential.js';
import type { GateResult } from './types.js';
import { judgedInEverySession } from './session-gates.js';
import {
  SATURATED_WORD,
  VERDICT_WORD,
  isSaturatedInconclusive,
  timingVerdict,
  verdictFacts,
  verdictLevel,
  verdictOfLevel,
  type RunVerdict,
  type Verdict,
  type VerdictFacts,
} from './verdict.js';
import { saturationText, type MachineLoadSummary } from '../analysis/machine-load.js';
import type { RunAnalysis } from '../analysis/summary.js';

/** How to judge: the gate files' folder (default: the harness's gates/) and whether timing is judged strictly. */
export interface JudgeOptions {
  gatesDir?: string;
  /** --strict-timing: a timing gate that fails on a saturated machine fails (default: inconclusive (saturated)). */
  strictTiming?: boolean;
}

/** What the machine's load did to a run's timing gates, as every output reports it (--json and summary.json `timing`). */
export interface TimingJudgement {
  /** The run's own load samples call the machine saturated (analysis/machine-load.ts, the one rule). */
  saturated: boolean;
  /** The medians the rule read and the cores it compared them with (null: the run journaled no load samples). */
  load: { load1P50: number; stealPctP50: number; cores: number; samples: number } | null;
  /** Timing judged strictly (--strict-timing): a timing gate's measured fail stands on a saturated machine. */
  strict: boolean;
  /** Timing gates that failed their bar on the saturated machine (inconclusive (saturated) unless strict), by id. */
  failedTiming: number[];
  /** The warning every output prints, with the load, steal and cores; null when the machine was not saturated. */
  warning: string | null;
}

/** The judged gates and the run's verdict from the lattice (verdict.ts). */
export interface Judgement {
  gates: GateResult[];
  verdict: RunVerdict;
  /** What the lattice read: gate verdicts, checker violations, adapter faults, negative control, trials. */
  facts: VerdictFacts;
  /** The machine's saturation and what it did to the timing gates. */
  timing: TimingJudgement;
  /** Set for a negative-control run: its verdict comes from whether the checker caught the planted fault. */
  control?: string;
}

/** The machine a run measured on, for the timing rule: its load summary (absent: not sampled) and strictness. */
export interface TimingFacts {
  machineLoad: MachineLoadSummary | undefined;
  strict: boolean;
}

const QUIET: TimingFacts = { machineLoad: undefined, strict: false };

/** Judge the gates; a negative-control run passes only if the checker found violations (the gates are shown as measured). */
export function judge(analysis: RunAnalysis, opts: JudgeOptions = {}): Judgement {
  const s = analysis.summary;
  const gates = loadGates(opts.gatesDir);
  const judgeOne = (a: RunAnalysis) =>
    evaluateGates(gates, a.summary, gateEvidenceFromAnalysis(a, a.cadence, a.summary.seed));
  const evaluated = judgedInEverySession(judgeOne(analysis), (analysis.perSession ?? []).map(judgeOne));
  const { gates: _judged, ...run } = verdictFacts(s, evaluated);
  const timing = { machineLoad: s.machineLoad, strict: opts.strictTiming === true };
  return judgement(evaluated, run, timing, s.runStatus?.untilDecided === true);
}

/** A bar a slow machine can fail: an upper bound ("p95 < 1000"); saturation makes a time longer, never shorter. */
function upperBar(g: Pick<GateResult, 'op'>): boolean {
  return g.op === '<' || g.op === '<=';
}

/**
 * Each timing gate of a saturated machine (its metric a time: metrics.ts) with its measured verdict and, when the
 * timing rule (verdict.ts timingVerdict) changed it, a note; only a bar that is an upper bound counts as timing there.
 */
export function applyTiming(gates: readonly GateResult[], t: TimingFacts): GateResult[] {
  const reason = saturationText(t.machineLoad);
  if (reason === null) return [...gates];
  return gates.map((g) => {
    if (!isTimeMetric(g.metric) || g.saturated !== undefined) return g; // judged already: keep what was measured
    const slowFails = upperBar(g);
    const verdict = timingVerdict(g.verdict, slowFails, true, t.strict);
    const note =
      g.verdict !== 'fail' || !slowFails
        ? ''
        : verdict === 'fail'
          ? 'failed on a saturated machine, judged as measured (--strict-timing)'
          : `failed its bar on a saturated machine: ${SATURATED_WORD}, the machine may have made it slow (--strict-timing judges it as measured)`;
    return {
      ...g,
      verdict,
      solid: verdict === g.verdict && g.solid,
      note: [g.note, note].filter(Boolean).join('; '),
      saturated: { measured: g.verdict, reason },
      ...(g.anytime && { anytime: anytimeOnSaturated(g.anytime, slowFails && !t.strict) }),
    };
  });
}

/** A timing gate's anytime fail on a saturated machine is undecided too (the machine may have made it slow). */
function anytimeOnSaturated(a: AnytimeDecision, distrust: boolean): AnytimeDecision {
  if (!distrust || a.decision !== 'fail') return a;
  const note = `failed on a saturated machine: undecided, the machine may have made it slow`;
  return { ...a, decision: 'undecided', note: [a.note, note].filter(Boolean).join('; ') };
}

/** The timing judgement of gates judged by applyTiming. */
export function timingJudgement(gates: readonly GateResult[], t: TimingFacts): TimingJudgement {
  const m = t.machineLoad;
  const saturation = saturationText(m);
  const failed = gates.filter((g) => g.saturated?.measured === 'fail' && upperBar(g));
  const names = failed.map((g) => `${g.id} (${g.title})`).join(', ');
  const s = failed.length === 1 ? '' : 's';
  const consequence =
    failed.length === 0
      ? 'No timing gate failed; a timing figure measured here may still reflect the machine.'
      : t.strict
        ? `Timing gate${s} ${names} failed on it and ${failed.length === 1 ? 'is' : 'are'} judged as measured (--strict-timing).`
        : `Timing gate${s} ${names} failed ${failed.length === 1 ? 'its' : 'their'} bar and ${failed.length === 1 ? 'is' : 'are'} reported ${SATURATED_WORD}: the machine, not the system under test, may have made ${failed.length === 1 ? 'it' : 'them'} slow. Rerun on a quiet machine, or judge with --strict-timing.`;
  return {
    saturated: saturation !== null,
    load: m ? { load1P50: m.load1.p50, stealPctP50: m.stealPct.p50, cores: m.cores, samples: m.samples } : null,
    strict: t.strict,
    failedTiming: failed.map((g) => g.id),
    warning: saturation === null ? null : `Measured on a ${saturation}. ${consequence}`,
  };
}

/** The judgement of already evaluated gates on a run with these checker facts, on a machine of these timing facts. */
export function judgement(
  evaluated: GateResult[],
  run: Omit<VerdictFacts, 'gates'>,
  t: TimingFacts = QUIET,
  /** A run stopped when decided: judged on the anytime-valid decisions (sequential.ts), after the timing rule. */
  sequential = false,
): Judgement {
  const timed = applyTiming(evaluated, t);
  const gates = sequential ? timed.map(judgedOnAnytime) : timed;
  const timing = timingJudgement(gates, t);
  const facts: VerdictFacts = { ...run, gates };
  const verdict = verdictOfLevel(verdictLevel(facts));
  if (!facts.negativeControl || verdict === 'adapter-fault') return { gates, verdict, facts, timing };
  const { violations, trials } = facts;
  const control =
    verdict === 'pass'
      ? `negative control: the checker caught the planted fault (${violations} violations in ${trials} cycles)`
      : `negative control: the checker found NO violation in ${trials} cycles; it cannot be trusted to catch this fault`;
  return { gates, verdict, facts, timing, control };
}

/** The verdict line's clause on a saturated machine: "; saturated machine: load p50 5.5 on 2 cores, ..." ('' if not). */
function saturationClause(t: TimingJudgement): string {
  if (!t.saturated || t.load === null) return '';
  const l = t.load;
  const what =
    t.failedTiming.length === 0
      ? 'timing may reflect the machine'
      : t.strict
        ? `timing judged as measured (--strict-timing): #${t.failedTiming.join(', #')} failed`
        : `#${t.failedTiming.join(', #')} ${SATURATED_WORD}`;
  return `; SATURATED machine: load p50 ${l.load1P50} on ${l.cores} cores, CPU steal p50 ${l.stealPctP50}%: ${what}`;
}

/** One line saying what the verdict means (and, on a saturated machine, its load and what it did to timing). */
export function verdictLine(j: Judgement): string {
  const word = VERDICT_WORD[j.verdict].toUpperCase();
  const sat = saturationClause(j.timing);
  if (j.control) return `verdict: ${word} (${j.control}${sat})`;
  const count = (v: Verdict): number => j.gates.filter((g) => g.verdict === v).length;
  const slowed = j.gates.filter(isSaturatedInconclusive).length;
  const undecided =
    count('inconclusive') > 0
      ? `${count('inconclusive')} inconclusive${slowed > 0 ? ` (${slowed} saturated)` : ''}, `
      : '';
  const parts = `${count('pass')} pass, ${count('fail')} fail, ${undecided}${count('insufficient')} insufficient of ${j.gates.length} gates`;
  if (j.verdict === 'adapter-fault') {
    const n = j.facts.adapterFaults ?? 0;
    return `verdict: ${word} (${n} adapter fault${n === 1 ? '' : 's'}, the first: ${j.facts.firstAdapterFault ?? ''}; ${parts}${sat})`;
  }
  if (j.verdict !== 'fail') return `verdict: ${word} (${parts}${sat})`;
  const failed = j.gates.filter((g) => g.verdict === 'fail').map((g) => `#${g.id} ${g.name}`);
  if (failed.length > 0) return `verdict: FAIL (${parts}; failed: ${failed.join(', ')}${sat})`;
  const v = j.facts.violations;
  return `verdict: FAIL (${parts}; the checker found ${v} consistency violation${v === 1 ? '' : 's'}${sat})`;
}
