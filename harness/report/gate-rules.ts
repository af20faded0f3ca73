// How the gates are judged, in plain words: the note printed above every report's gate descriptions.
import { exitCodeFor, type RunVerdict, VERDICT_WORD } from '../gates/verdict.js';

/** The judging rules every report states beside its gate table (plain text, escaped by the renderer). */
export const GATE_RULES: readonly string[] = [
  'A success rate shows what was observed (k/n) and its Wilson 95% interval; it is judged on the end of the interval its threshold names (wilson95.lo: the lower end must clear the bar).',
  'A count is judged on the count; a ratio on its value.',
  'A quantile (p95...) is judged on its point estimate, shown with its distribution-free 95% interval from order statistics, and checked against its one-sided 95% bounds (order statistics too): when both bounds are on the same side of the bar as the point, the verdict is solid; when they reach across the bar (or the sample cannot bound that side) the verdict is "inconclusive at 95%", never a pass.',
  'Minimum n for a quantile: at least the fewest samples whose order statistics bound it at 95% one-sided on the side of the bar: 1 - q^n >= 0.95 for an upper bound, so p95 needs n >= 59 (p99: 299). Below it the gate is insufficient data, unless its interval already lies wholly beyond the bar.',
  'Below its minimum n a gate never passes. It fails (a solid fail, its n and interval shown, noted as below the minimum n for a pass) when its whole 95% interval, or its one-sided 95% bound, lies strictly beyond the bar on the failing side, since no further samples could make it pass (6/11 resumed, Wilson [28.0%, 78.7%], fails a 95% bar); an interval that reaches or touches the bar is insufficient data.',
  'Each gate also carries an anytime-valid decision (pass, fail or undecided at alpha 0.05 one-sided, with its interval; docs/anytime.md): the verdict above is the fixed-n one, valid for a run whose length was fixed in advance and read once at its end; the anytime-valid decision stays valid however often the run was looked at and whenever it stopped. A run stopped when decided (soak run --until-decided) is judged on the anytime-valid decisions, and a gate still undecided then is inconclusive.',
  `Exit codes follow the verdict: ${exitsByVerdict()} (an adapter fault: an exec adapter broke the target protocol; never a pass, and consistency violations still make it a fail).`,
];

/** "0 pass, 1 fail, 2 inconclusive at 95% or insufficient data, 5 adapter fault": each code and the verdicts that exit with it. */
function exitsByVerdict(): string {
  const verdicts: RunVerdict[] = ['pass', 'fail', 'inconclusive', 'insufficient', 'adapter-fault'];
  const byCode = new Map<number, string[]>();
  for (const v of verdicts) byCode.set(exitCodeFor(v), [...(byCode.get(exitCodeFor(v)) ?? []), VERDICT_WORD[v]]);
  return [...byCode].map(([code, words]) => `${code} ${words.join(' or ')}`).join(', ');
}
