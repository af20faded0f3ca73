// The terminal gate table (`soak run`, `soak gates`): the same figures as summary.md and index.html, through gate-format.ts.
import type { GateResult } from '../../gates/types.js';
import { fmtGateInterval, fmtGateJudged, fmtGateObserved, fmtGateThreshold, fmtGateVerdict } from './gate-format.js';

/** Column headings, in the order of summary.md's gate table. */
export const GATE_TABLE_HEADER = [
  '#',
  'gate',
  'threshold',
  'observed',
  '95% interval',
  'judged on',
  'n (min)',
  'verdict',
  'note',
] as const;

/** One gate's cells, exactly as summary.md and index.html print them (unescaped plain text). */
export function gateTableCells(r: GateResult): string[] {
  return [
    String(r.id).padStart(2, '0'),
    r.title,
    fmtGateThreshold(r),
    fmtGateObserved(r),
    fmtGateInterval(r),
    fmtGateJudged(r),
    `${r.n} (${r.minN})`,
    fmtGateVerdict(r),
    r.note,
  ];
}

/** Render results as an aligned plain-text table (no colours; safe for CI logs). Callers make controls visible (core/visible.ts). */
export function formatGateTable(results: readonly GateResult[]): string {
  const rows = results.map(gateTableCells);
  const header: string[] = [...GATE_TABLE_HEADER];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
