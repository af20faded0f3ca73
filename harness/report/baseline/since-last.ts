// "Since last report": each gate's verdict and figures then and now, and a permutation test on downtime between the two
// reports' cycles.csv samples (stats/compare.ts). Pure; the page and summary.md render its cells as they are.
import type { GateResult } from '../../gates/types.js';
import { VERDICT_WORD, type VerdictLevel } from '../../gates/verdict.js';
import { compareSamples, type Comparison } from '../../stats/compare.js';
import { fmtGateInterval, fmtGateObserved, fmtGateVerdict } from '../text/gate-format.js';
import { fmtMs, fmtPValue } from '../text/format.js';
import type { Baseline } from './read-baseline.js';

/** One gate then and now, as display text (unescaped); a side is "not judged" when that report lacks the gate. */
export interface GateChangeRow {
  id: number;
  title: string;
  then: string;
  now: string;
  /** "unchanged", or "pass → fail" style when the verdict moved. */
  change: string;
}

/** The comparison with the previous report, as summary.json stores it and the report renders it. */
export interface SinceLast {
  baseline: { dir: string; runId: string; date: string; startedAt: string; verdict: VerdictLevel };
  gates: GateChangeRow[];
  /** Downtime of resumed cycles, baseline (a) vs this run (b); null when either side has no sample. */
  downtime: Comparison | null;
  /** One line saying what the downtime test found, with both n. */
  downtimeLine: string;
}

type Shown = Pick<GateResult, 'unit' | 'verdict' | 'solid' | 'observed' | 'successes' | 'n' | 'interval'>;

/** A gate's figures in one cell: "pass: 100% (80/80) [95.4%, 100%], n = 80" (through gate-format.ts; no interval: none shown). */
export function gateCell(g: Shown | undefined): string {
  if (g === undefined) return 'not judged';
  const interval = g.interval === null ? '' : ` ${fmtGateInterval(g)}`;
  return `${fmtGateVerdict(g)}: ${fmtGateObserved(g)}${interval}, n = ${g.n}`;
}

function changeOf(then: Shown | undefined, now: Shown | undefined): string {
  if (then === undefined || now === undefined) return then === undefined ? 'new gate' : 'no longer judged';
  return then.verdict === now.verdict ? 'unchanged' : `${VERDICT_WORD[then.verdict]} → ${VERDICT_WORD[now.verdict]}`;
}

/** The downtime line: medians with n, the median difference with its bootstrap CI, the permutation p-value and verdict. */
export function downtimeLine(c: Comparison | null, nThen: number, nNow: number): string {
  if (c === null) return `downtime: no comparison (${nThen} resumed cycles then, ${nNow} now; both need at least one)`;
  const sign = c.diff >= 0 ? '+' : '−';
  return (
    `downtime median ${fmtMs(c.medianA)} then (n = ${c.nA}), ${fmtMs(c.medianB)} now (n = ${c.nB}): ` +
    `${sign}${fmtMs(Math.abs(c.diff))}, 95% CI [${fmtMs(c.ci[0])}, ${fmtMs(c.ci[1])}]; ` +
    `permutation test on the medians (${c.method}, ${c.permutations} splits) p = ${fmtPValue(c.pValue)}: ${c.verdict}`
  );
}

/** Compare this report's gates and downtimes with the baseline's. */
export function sinceLast(baseline: Baseline, gates: readonly GateResult[], downtimes: ArrayLike<number>): SinceLast {
  const ids = [...new Set([...baseline.gates.map((g) => g.id), ...gates.map((g) => g.id)])].sort((a, b) => a - b);
  const rows = ids.map((id) => {
    const then = baseline.gates.find((g) => g.id === id);
    const now = gates.find((g) => g.id === id);
    return {
      id,
      title: now?.title ?? then?.title ?? '',
      then: gateCell(then),
      now: gateCell(now),
      change: changeOf(then, now),
    };
  });
  const downtime =
    baseline.downtimes.length > 0 && downtimes.length > 0 ? compareSamples(baseline.downtimes, downtimes) : null;
  const { dir, runId, date, startedAt, verdict } = baseline;
  return {
    baseline: { dir, runId, date, startedAt, verdict },
    gates: rows,
    downtime,
    downtimeLine: downtimeLine(downtime, baseline.downtimes.length, downtimes.length),
  };
}

/** summary.json's `baseline` field: the baseline's identity, then the comparison; nothing without a baseline. */
export function sinceLastJson(s: SinceLast | undefined): { baseline?: Record<string, unknown> } {
  if (s === undefined) return {};
  return { baseline: { ...s.baseline, gates: s.gates, downtime: s.downtime, downtimeLine: s.downtimeLine } };
}
