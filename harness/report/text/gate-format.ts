// Formatting a gate's figures in the gate's own unit (a "%" proportion as a percentage, "ms" as a duration, anything
// else as a plain number), as GateResult.unit declares it: what was observed, its 95% interval, which figure the bar
// was judged on, the threshold with its unit, and the verdict word. Every output that shows a gate uses these.
import type { GateResult } from '../../gates/types.js';
import { thresholdWithUnit } from '../../gates/threshold.js';
import { isSaturatedInconclusive, SATURATED_WORD, VERDICT_WORD } from '../../gates/verdict.js';
import { fmtMs, fmtNum, fmtPct } from './format.js';
import { escapeMarkdown as md } from '../escape.js';

type Unit = Pick<GateResult, 'unit'>;

function fmtIn(gate: Unit, v: number | null, round: 'nearest' | 'down' | 'up' = 'nearest'): string {
  if (gate.unit === '%') return fmtPct(v, round);
  return gate.unit === 'ms' ? fmtMs(v) : fmtNum(v);
}

/** The judged value in the gate's unit; "n/a" when nothing was measured. */
export function fmtGateValue(gate: Pick<GateResult, 'unit' | 'value'>): string {
  return fmtIn(gate, gate.value);
}

/** What was observed: a rate as "100% (80/80)", anything else as its value; "n/a" when nothing was measured. */
export function fmtGateObserved(gate: Pick<GateResult, 'unit' | 'observed' | 'successes' | 'n'>): string {
  if (gate.observed === null) return 'n/a';
  const count = gate.unit === '%' && gate.successes !== null ? ` (${gate.successes}/${gate.n})` : '';
  return `${fmtIn(gate, gate.observed)}${count}`;
}

/** The 95% interval in the gate's unit, "[95.4%, 100%]" (a proportion's ends rounded outward); "–" when there is none. */
export function fmtGateInterval(gate: Pick<GateResult, 'unit' | 'interval'>): string {
  if (gate.interval === null) return '–';
  return `[${fmtIn(gate, gate.interval[0], 'down')}, ${fmtIn(gate, gate.interval[1], 'up')}]`;
}

/**
 * Which figure the bar was judged on: "lower end, 95.4%", "upper end, ..."; for a distribution statistic "point
 * estimate" and the one-sided 95% bound that confirms it ("95% bound ≤ 122 ms", "no 95% bound above"); "the count", "the ratio".
 */
export function fmtGateJudged(
  gate: Pick<GateResult, 'unit' | 'value' | 'judged' | 'kind' | 'bounds' | 'op' | 'verdict' | 'saturated'>,
): string {
  if (gate.judged === 'lower') return `lower end, ${fmtIn(gate, gate.value, 'down')}`;
  if (gate.judged === 'upper') return `upper end, ${fmtIn(gate, gate.value, 'up')}`;
  if (gate.kind !== 'distribution') return gate.kind === 'ratio' ? 'the ratio' : 'the count';
  if (gate.bounds === null || gate.value === null || gate.op === '==') return 'point estimate';
  // the bound on the bar's side decides a pass; the other side decides a fail
  const barAbove = gate.op === '<' || gate.op === '<=';
  const measured = gate.saturated?.measured ?? gate.verdict; // a fail not trusted on a saturated machine: as measured
  const upper = measured === 'fail' ? !barAbove : barAbove;
  const bound = gate.bounds[upper ? 1 : 0];
  const side = upper ? '≤' : '≥';
  return bound === null
    ? `point estimate; no 95% bound ${upper ? 'above' : 'below'}`
    : `point estimate; 95% bound ${side} ${fmtIn(gate, bound)}`;
}

/** The threshold with the unit of its bar: "p95 < 1000 ms", "wilson95.lo >= 95%". */
export function fmtGateThreshold(gate: Pick<GateResult, 'stat' | 'op' | 'bound' | 'unit'>): string {
  return thresholdWithUnit(gate);
}

/**
 * The verdict word; a point verdict its whole 95% interval agrees with says so ("fail, solid at 95%"); a timing gate's
 * fail not trusted on a saturated machine is "inconclusive (saturated)".
 */
export function fmtGateVerdict(gate: Pick<GateResult, 'verdict' | 'solid' | 'saturated'>): string {
  if (isSaturatedInconclusive(gate)) return SATURATED_WORD;
  return `${VERDICT_WORD[gate.verdict]}${gate.solid ? ', solid at 95%' : ''}`;
}

/** Headers of the Markdown gate tables' shared columns (summary.md and the CI job summary). */
export const GATE_MD_HEADERS = ['#', 'Gate', 'Threshold', 'Observed', '95% interval', 'Judged on', 'n (min)'];

/** A gate's cells under GATE_MD_HEADERS, Markdown-escaped. */
export function gateMarkdownCells(g: GateResult): string[] {
  return [
    String(g.id),
    md(g.title),
    md(fmtGateThreshold(g)),
    md(fmtGateObserved(g)),
    md(fmtGateInterval(g)),
    md(fmtGateJudged(g)),
    `${g.n} (${g.minN})`,
  ];
}
