// The one verdict lattice (Jepsen-style): fail outranks adapter-fault outranks inconclusive outranks insufficient
// outranks pass; checker violations fail a run; an adapter fault is never a pass; a negative control passes only when
// caught; a timing gate that fails on a saturated machine is inconclusive (saturated) unless timing is strict.
// judge.ts, the CLI line, the report banner, summary.json and the index use it.
import { EXIT } from '../core/errors.js';
import type { Summary } from '../analysis/summary.js';

/**
 * A verdict: what a gate, or a whole run, comes to. "inconclusive" is a point estimate whose one-sided 95% bounds
 * reach across the bar (or cannot be had on the side that would decide it): the point says one thing, the bounds both.
 */
export type Verdict = 'pass' | 'fail' | 'inconclusive' | 'insufficient';

/**
 * A whole run's verdict: a gate's, or "adapter-fault" (an exec adapter broke the protocol: the run measured the
 * adapter's fault, not the runtime; exit 5). Gates are never judged adapter-fault.
 */
export type RunVerdict = Verdict | 'adapter-fault';

/** The word each verdict is printed as, in every output (terminal, summary.md, index.html). */
export const VERDICT_WORD: Record<RunVerdict, string> = {
  pass: 'pass',
  fail: 'fail',
  inconclusive: 'inconclusive at 95%',
  insufficient: 'insufficient data',
  'adapter-fault': 'adapter fault',
};

/** The word of a timing gate whose measured fail is not trusted on a saturated machine (timingVerdict). */
export const SATURATED_WORD = 'inconclusive (saturated)';

/**
 * The rule for a timing gate (its metric measures a time, its bar an upper bound: "p95 < 1000") judged on a saturated
 * machine (analysis/machine-load.ts): a measured fail is inconclusive, since the machine may have made it slow (exit
 * 2, not 1), unless timing is strict (--strict-timing); a pass stays a pass (saturation only slows things down); any
 * other gate (a correctness gate, a time that must be long enough), and every gate of a machine that was not
 * saturated, keeps its measured verdict.
 */
export function timingVerdict(measured: Verdict, timing: boolean, saturated: boolean, strict: boolean): Verdict {
  return timing && saturated && !strict && measured === 'fail' ? 'inconclusive' : measured;
}

/** Whether a gate is a timing gate's measured fail reported inconclusive (saturated) by timingVerdict. */
export function isSaturatedInconclusive(g: Pick<JudgedGate, 'verdict' | 'saturated'>): boolean {
  return g.verdict === 'inconclusive' && g.saturated?.measured === 'fail';
}

/** Overall verdict level; "none" when no gate was judged and nothing failed (its verdict is insufficient). */
export type VerdictLevel = RunVerdict | 'none';

/** What the lattice reads of a judged gate (a GateResult has these and more; types.ts depends on this file, not back). */
interface JudgedGate {
  id: number;
  title: string;
  verdict: Verdict;
  /** A timing gate judged on a saturated machine: its measured verdict and the saturation (GateResult.saturated). */
  saturated?: { measured: Verdict; reason: string };
}

/** The banner: level, a short headline, and one sentence of detail (plain text, escaped by the renderer). */
export interface ReportVerdict {
  level: VerdictLevel;
  headline: string;
  detail: string;
}

/** Everything the lattice reads about a run: its gate verdicts, the checker's violations and whether it was a control. */
export interface VerdictFacts {
  gates: readonly Pick<JudgedGate, 'verdict'>[];
  /** Consistency violations (the checker's; adapter faults are counted apart). */
  violations: number;
  /** Adapter faults (summary.adapterFaults; absent: none) and the first one's message. */
  adapterFaults?: number;
  firstAdapterFault?: string;
  /** A run that planted a fault on purpose: it passes only if the checker caught it. */
  negativeControl: boolean;
  /** Cycles that reached an outcome (kill-and-resume trials). */
  trials: number;
}

/** The facts of an analysed run and its judged gates. */
export function verdictFacts(summary: Summary, gates: readonly Pick<JudgedGate, 'verdict'>[]): VerdictFacts {
  return {
    gates,
    violations: summary.violations,
    adapterFaults: summary.adapterFaults?.count ?? 0,
    firstAdapterFault: summary.adapterFaults?.samples[0] ?? '',
    negativeControl: summary.negativeControl === true,
    trials: summary.killResume.trials,
  };
}

/** Combine verdicts: fail outranks inconclusive outranks insufficient outranks pass (nothing to combine: insufficient). */
export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('fail')) return 'fail';
  if (verdicts.includes('inconclusive')) return 'inconclusive';
  if (verdicts.length === 0 || verdicts.includes('insufficient')) return 'insufficient';
  return 'pass';
}

/**
 * The run's level: checker violations fail it (a control: pass it, caught); then any adapter fault makes it
 * adapter-fault (never a pass, a caught control neither); then a control by whether it was caught (0 trials:
 * insufficient), else the gates combined.
 */
export function verdictLevel(f: VerdictFacts): VerdictLevel {
  if (f.violations > 0 && !f.negativeControl) return 'fail';
  if ((f.adapterFaults ?? 0) > 0) return 'adapter-fault';
  if (f.negativeControl) return f.violations > 0 ? 'pass' : f.trials === 0 ? 'insufficient' : 'fail';
  return f.gates.length === 0 ? 'none' : combineVerdicts(f.gates.map((g) => g.verdict));
}

/** The verdict of a level: "none" (no gate judged) is not a pass, so it is insufficient. */
export function verdictOfLevel(level: VerdictLevel): RunVerdict {
  return level === 'none' ? 'insufficient' : level;
}

/**
 * The verdict of a gate below its minimum n: never a pass; a fail when its whole 95% interval (or one-sided 95% bound)
 * lies strictly beyond the bar on the failing side, since no further samples can bring it back at 95% (an end touching
 * the bar is not solid); otherwise insufficient.
 */
export function verdictBelowMinN(beyondBar: boolean): 'fail' | 'insufficient' {
  return beyondBar ? 'fail' : 'insufficient';
}

/** The note on a solid fail below minimum n: its n, and that n is below the minimum for a pass. */
export function belowMinNFailNote(n: number, minN: number): string {
  return `solid fail: n = ${n} is below the minimum n ${minN} for a pass, but the whole 95% interval is beyond the bar`;
}

/** Exit code of a verdict: pass 0, fail 1, inconclusive and insufficient 2 (not known either way), adapter fault 5. */
export function exitCodeFor(verdict: RunVerdict): number {
  if (verdict === 'adapter-fault') return EXIT.adapterFault;
  return verdict === 'pass' ? EXIT.pass : verdict === 'fail' ? EXIT.fail : EXIT.insufficient;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function gateList(gates: readonly JudgedGate[]): string {
  return gates.map((g) => `${g.id} (${g.title})`).join(', ');
}

/** What the runtime's adapter declared its checkpoint does not cover, as a sentence for a failed run ('' if nothing). */
function runtimeLimits(summary: Summary): string {
  const limits = summary.environment.target['limitations'];
  if (typeof limits !== 'string' || limits.length === 0) return '';
  const runtime = summary.environment.target['runtime'];
  return ` The runtime (${typeof runtime === 'string' ? runtime : 'its adapter'}) declares that its checkpoint does not cover this: ${limits}.`;
}

/** The banner for a run: its level from the lattice, with a headline and a sentence of detail. */
export function reportVerdict(summary: Summary, gates: readonly JudgedGate[]): ReportVerdict {
  const facts = verdictFacts(summary, gates);
  const level = verdictLevel(facts);
  if (facts.negativeControl && level !== 'adapter-fault') return negativeControlBanner(level, facts);
  const failed = gates.filter((g) => g.verdict === 'fail');
  const insufficient = gates.filter((g) => g.verdict === 'insufficient');
  const inconclusive = gates.filter((g) => g.verdict === 'inconclusive');
  const passed = gates.filter((g) => g.verdict === 'pass');
  switch (level) {
    case 'fail': {
      const which = failed.length > 0 ? `Failed: gate${failed.length === 1 ? '' : 's'} ${gateList(failed)}.` : '';
      const violations =
        facts.violations > 0 ? ` The checker found ${plural(facts.violations, 'consistency violation')}.` : '';
      const strict = failed.filter((g) => g.saturated !== undefined);
      const slow =
        strict.length > 0
          ? ` Timing gate${strict.length === 1 ? '' : 's'} ${gateList(strict)} failed on a saturated machine (${strict[0]!.saturated!.reason}), judged as measured.`
          : '';
      return {
        level,
        headline: `FAIL: ${failed.length} of ${gates.length} gates failed`,
        detail: `${which}${slow}${violations}${facts.violations > 0 ? runtimeLimits(summary) : ''}`.trim(),
      };
    }
    case 'adapter-fault':
      return adapterFaultBanner(facts, failed, gates.length);
    case 'inconclusive': {
      const slowed = inconclusive.filter(isSaturatedInconclusive);
      const straddle = inconclusive.filter((g) => !isSaturatedInconclusive(g));
      return {
        level,
        headline: `INCONCLUSIVE AT 95%: ${passed.length} of ${gates.length} gates pass, ${inconclusive.length} inconclusive${slowed.length > 0 ? ` (${slowed.length} saturated)` : ''}`,
        detail: [
          slowed.length > 0
            ? `Timing gate${slowed.length === 1 ? '' : 's'} ${gateList(slowed)} failed ${slowed.length === 1 ? 'its' : 'their'} bar on a saturated machine (${slowed[0]!.saturated!.reason}): the machine may have made ${slowed.length === 1 ? 'it' : 'them'} slow, so ${slowed.length === 1 ? 'it is' : 'they are'} inconclusive (saturated); rerun on a quiet machine, or judge with --strict-timing.`
            : '',
          straddle.length > 0
            ? `The point estimate of gate${straddle.length === 1 ? '' : 's'} ${gateList(straddle)} is on one side of the bar but its 95% interval reaches the other: more samples are needed before it is a pass or a fail.`
            : '',
          insufficient.length > 0 ? `Below their minimum sample size: ${gateList(insufficient)}.` : '',
        ]
          .filter(Boolean)
          .join(' '),
      };
    }
    case 'insufficient':
      return {
        level,
        headline: `INSUFFICIENT DATA: ${passed.length} of ${gates.length} gates pass, ${insufficient.length} need more samples`,
        detail: `Below their minimum sample size: gate${insufficient.length === 1 ? '' : 's'} ${gateList(insufficient)}. Insufficient data is never a pass.`,
      };
    case 'none':
      return {
        level,
        headline: 'NO GATES JUDGED',
        detail: 'This report states measurements only; no release gate was evaluated.',
      };
    case 'pass':
      return {
        level,
        headline: `PASS: all ${gates.length} gates pass`,
        detail: 'Every gate was judged on its interval and cleared its bar with at least its minimum sample size.',
      };
  }
}

/** The banner of a run whose exec adapter broke the protocol: how many faults, the first, and the gates that failed. */
function adapterFaultBanner(f: VerdictFacts, failed: readonly JudgedGate[], judged: number): ReportVerdict {
  const gatesFailed = failed.length > 0 ? ` Failed: gate${failed.length === 1 ? '' : 's'} ${gateList(failed)}.` : '';
  return {
    level: 'adapter-fault',
    headline: `ADAPTER FAULT: ${plural(f.adapterFaults ?? 0, 'adapter fault')}, ${failed.length} of ${judged} gates failed`,
    detail: `The exec adapter broke the target protocol, so this run cannot vouch for the runtime (never a pass); the first: ${f.firstAdapterFault ?? ''}.${gatesFailed}`,
  };
}

/** The banner of a negative-control run (a fault planted on purpose). */
function negativeControlBanner(level: VerdictLevel, f: VerdictFacts): ReportVerdict {
  if (level === 'pass') {
    return {
      level,
      headline: 'PASS: the negative control was caught',
      detail: `This run planted a fault on purpose; the checker reported ${plural(f.violations, 'violation')} in ${f.trials} cycles, so it can fail when it should. The gates below are expected to fail.`,
    };
  }
  if (level === 'insufficient')
    return {
      level,
      headline: 'INSUFFICIENT DATA: negative control with no cycles',
      detail: 'No cycle reached an outcome, so the control says nothing.',
    };
  return {
    level,
    headline: 'FAIL: the negative control was NOT caught',
    detail: `This run planted a fault on purpose, yet the checker found no violation in ${f.trials} cycles: it cannot be trusted to catch this fault.`,
  };
}
