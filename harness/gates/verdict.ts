// The one-line verdict for the banner: Jepsen-style, fail outranks insufficient outranks pass; checker violations fail the run.
import type { GateResult } from './types.js';
import type { Summary } from '../analysis/summary.js';

/** Overall verdict level; "none" when no gate was judged and nothing failed. */
export type VerdictLevel = 'pass' | 'fail' | 'insufficient' | 'none';

/** The banner: level, a short headline, and one sentence of detail (plain text, escaped by the renderer). */
export interface ReportVerdict {
  level: VerdictLevel;
  headline: string;
  detail: string;
}

function gateList(gates: readonly GateResult[]): string {
  return gates.map((g) => `${g.id} (${g.title})`).join(', ');
}

/** Combine gate verdicts and checker violations into one verdict. */
export function reportVerdict(summary: Summary, gates: readonly GateResult[]): ReportVerdict {
  if (summary.negativeControl) return negativeControlVerdict(summary);
  const failed = gates.filter((g) => g.verdict === 'fail');
  const insufficient = gates.filter((g) => g.verdict === 'insufficient');
  const passed = gates.filter((g) => g.verdict === 'pass');
  const violations =
    summary.violations > 0
      ? ` The checker found ${summary.violations} consistency violation${summary.violations === 1 ? '' : 's'}.`
      : '';
  if (failed.length > 0 || summary.violations > 0) {
    const which = failed.length > 0 ? `Failed: gate${failed.length === 1 ? '' : 's'} ${gateList(failed)}.` : '';
    return {
      level: 'fail',
      headline: `FAIL: ${failed.length} of ${gates.length} gates failed`,
      detail: `${which}${violations}`.trim(),
    };
  }
  if (insufficient.length > 0) {
    return {
      level: 'insufficient',
      headline: `INSUFFICIENT DATA: ${passed.length} of ${gates.length} gates pass, ${insufficient.length} need more samples`,
      detail: `Below their minimum sample size: gate${insufficient.length === 1 ? '' : 's'} ${gateList(insufficient)}. Insufficient data is never a pass.`,
    };
  }
  if (gates.length === 0) {
    return {
      level: 'none',
      headline: 'NO GATES JUDGED',
      detail: 'This report states measurements only; no release gate was evaluated.',
    };
  }
  return {
    level: 'pass',
    headline: `PASS: all ${gates.length} gates pass`,
    detail: 'Every gate was judged on its interval and cleared its bar with at least its minimum sample size.',
  };
}

/** A negative-control run (a fault planted on purpose) passes only when the checker caught it. */
function negativeControlVerdict(summary: Summary): ReportVerdict {
  const n = summary.killResume.trials;
  if (summary.violations > 0) {
    return {
      level: 'pass',
      headline: 'PASS: the negative control was caught',
      detail: `This run planted a fault on purpose; the checker reported ${summary.violations} violation${summary.violations === 1 ? '' : 's'} in ${n} cycles, so it can fail when it should. The gates below are expected to fail.`,
    };
  }
  if (n === 0)
    return {
      level: 'insufficient',
      headline: 'INSUFFICIENT DATA: negative control with no cycles',
      detail: 'No cycle reached an outcome, so the control says nothing.',
    };
  return {
    level: 'fail',
    headline: 'FAIL: the negative control was NOT caught',
    detail: `This run planted a fault on purpose, yet the checker found no violation in ${n} cycles: it cannot be trusted to catch this fault.`,
  };
}
