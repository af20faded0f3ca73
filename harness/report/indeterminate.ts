// What a report says about cycles it could not judge and about a run that did not complete: the notice that opens
// the report, the indeterminate cycles by cause, and the warning when too many of them leave the sample thin.
import type { Summary } from '../analysis/summary.js';
import { fmtPct } from './text/format.js';

/** Above this share of indeterminate cycles a report warns that its rates rest on a thinned, maybe biased, sample. */
export const INDETERMINATE_WARN_SHARE = 0.05;

/** What a report says about outcomes the harness or machine left unjudged. */
export interface IndeterminateText {
  /** The report's first line when the run did not complete (aborted, interrupted, out of budget, no run-end). */
  notice: string | null;
  /** One line per cause ('host-hung: 2 cycles'), then up to 10 samples; empty when every cycle was judged. */
  lines: string[];
  /** Set when the indeterminate share exceeds INDETERMINATE_WARN_SHARE. */
  warning: string | null;
}

const STATUS_TEXT: Record<'aborted' | 'interrupted' | 'budget' | 'unknown', string> = {
  aborted: 'was aborted by an error',
  interrupted: 'was interrupted (Ctrl-C or SIGTERM)',
  budget: 'stopped when its time budget ran out',
  unknown: 'has no run-end: its runner died or is still running',
};

/** The notice, cause lines and warning for `s` (pure). */
export function indeterminateText(s: Summary): IndeterminateText {
  const status = s.runStatus?.status ?? 'complete';
  const notice =
    status === 'complete'
      ? null
      : `This run did not complete: it ${STATUS_TEXT[status]}${s.runStatus?.reason ? ` (${s.runStatus.reason})` : ''}; ${s.cycles.total} cycles were run, and every figure below covers only those.`;
  const n = s.cycles.indeterminate;
  const causes = Object.entries(s.indeterminate?.causes ?? {}).filter(([, k]) => k > 0);
  const lines =
    n === 0
      ? []
      : [...causes.map(([code, k]) => `${code}: ${k} cycle${k === 1 ? '' : 's'}`), ...(s.indeterminate?.samples ?? [])];
  const share = s.cycles.total > 0 ? n / s.cycles.total : 0;
  const warning =
    share > INDETERMINATE_WARN_SHARE
      ? `${n} of ${s.cycles.total} cycles (${fmtPct(share)}) are indeterminate, more than ${fmtPct(INDETERMINATE_WARN_SHARE)}: the success rates rest on the ${s.cycles.total - n} judged cycles only and may be biased; fix the infrastructure fault and run again before publishing.`
      : null;
  return { notice, lines, warning };
}
