// Plain-text table of gate results: #, gate, observed, interval, judged, n/minN, threshold (with unit), verdict, note.
import { thresholdWithUnit } from './threshold.js';
import type { GateResult } from './types.js';
import { VERDICT_WORD } from './verdict.js';

/** Format a number for the table: integers as they are, small values to 4 dp, others to 1 dp. */
export function formatNumber(x: number | null): string {
  if (x === null) return '-';
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) < 10 ? x.toFixed(4) : x.toFixed(1);
}

/** What was observed: a rate with its k/n. */
function observed(r: GateResult): string {
  const count = r.kind === 'rate' && r.unit === '%' && r.successes !== null ? ` (${r.successes}/${r.n})` : '';
  return `${formatNumber(r.observed)}${count}`;
}

/** Render results as an aligned plain-text table (no colours; safe for CI logs and summary.md code blocks). */
export function formatGateTable(results: readonly GateResult[]): string {
  const header = ['#', 'gate', 'observed', 'interval', 'judged', 'n/minN', 'threshold', 'verdict', 'note'];
  const rows = results.map((r) => [
    String(r.id).padStart(2, '0'),
    r.title,
    observed(r),
    r.interval === null ? '-' : `[${formatNumber(r.interval[0])}, ${formatNumber(r.interval[1])}]`,
    r.judged === 'point' ? 'point' : `${r.judged} ${formatNumber(r.value)}`,
    `${r.n}/${r.minN}`,
    thresholdWithUnit(r),
    `${VERDICT_WORD[r.verdict].toUpperCase()}${r.solid ? ' (SOLID)' : ''}`,
    r.note,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
