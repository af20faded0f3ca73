// How a gate's anytime-valid decision reads (watch page, demo, report): the decision with its level and method, and
// the interval of the rate it tests, each labelled as valid at every look, unlike the fixed-n verdict.
import type { GateResult } from '../../gates/types.js';

/** What the live pages and the report label the two verdicts with. */
export const FIXED_N_LABEL = 'fixed-n verdict (valid at the planned end only)';
export const ANYTIME_LABEL = 'anytime-valid (valid at every look)';

function pct(x: number): string {
  return `${Number((x * 100).toFixed(1))}%`;
}

/** "pass at alpha 0.05", "undecided", "pass (gate's own rule)"; "–" for a gate judged before anytime decisions. */
export function fmtAnytimeDecision(g: Pick<GateResult, 'anytime'>): string {
  const a = g.anytime;
  if (a === undefined) return '–';
  if (a.method === 'gate-rule')
    return a.decision === 'undecided' ? 'undecided (gate rule)' : `${a.decision} (gate rule)`;
  return a.decision === 'undecided' ? `undecided at alpha ${a.alpha}` : `${a.decision} at alpha ${a.alpha}`;
}

/** "[95.1%, 100%] of trials that succeeded (k/n) vs 95%"; the rule's note for a gate-rule decision; '' without one. */
export function fmtAnytimeInterval(g: Pick<GateResult, 'anytime'>): string {
  const a = g.anytime;
  if (a === undefined) return '';
  if (a.interval === null) return a.note;
  const counts = a.successes !== null && a.trials !== null ? ` (${a.successes}/${a.trials})` : '';
  const bar = a.bar !== null ? ` vs ${pct(a.bar)}` : '';
  return `[${pct(a.interval[0])}, ${pct(a.interval[1])}] of ${a.rate}${counts}${bar}`;
}
