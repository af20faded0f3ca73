// How a gate's anytime-valid decision reads (watch page, demo, report): the decision with its level and method, and
// the interval of the rate it tests, each labelled as valid at every look, unlike the fixed-n verdict.
import type { GateResult } from '../../gates/types.js';
import { escapeMarkdown as md } from '../escape.js';

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

/** summary.md's "Anytime-valid decisions" table (nothing for gates judged before they had one). */
export function anytimeSection(gates: readonly GateResult[]): string[] {
  const decided = gates.filter((g) => g.anytime !== undefined);
  if (decided.length === 0) return [];
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    '### Anytime-valid decisions',
    '',
    `The verdicts above are fixed-n: valid for a run whose length was fixed in advance, read once at its end. Below, each gate's decision ${ANYTIME_LABEL}: pass or fail only once certified at alpha (docs/anytime.md).`,
    '',
    row(['#', 'Gate', 'Anytime-valid decision', 'Interval']),
    row(['--:', '---', '---', '---']),
    ...decided.map((g) => row([String(g.id), md(g.title), md(fmtAnytimeDecision(g)), md(fmtAnytimeInterval(g))])),
    '',
  ];
}
