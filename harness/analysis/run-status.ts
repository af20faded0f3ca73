// How a run's outcomes read beyond ok and fail: its indeterminate cycles by cause, and how its runners ended.
import type { CauseCode, RunEndEvent } from '../journal/events.js';
import type { Summary } from './summary.js';

/** The summary's indeterminate block: counts by cause, cycles with no outcome as 'unfinished'. */
export function indeterminateOf(
  causes: Partial<Record<CauseCode, number>>,
  unfinished: number,
  samples: string[],
): NonNullable<Summary['indeterminate']> {
  return { causes: unfinished > 0 ? { ...causes, unfinished } : { ...causes }, samples };
}

/** How the runs ended: the first one that did not complete (a missing run-end: 'unknown'), else complete. */
export function runStatusOf(ends: readonly (RunEndEvent | null)[]): NonNullable<Summary['runStatus']> {
  for (const e of ends) {
    if (e === null) return { status: 'unknown' };
    if (e.status !== 'complete')
      return e.reason === undefined ? { status: e.status } : { status: e.status, reason: e.reason };
  }
  return { status: 'complete' };
}
