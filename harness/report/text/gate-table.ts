// The terminal gate table (`soak run`, `soak gates`): the same figures as summary.md and index.html, through
// gate-format.ts, fitted to the terminal's width: the whole table when it fits; else the main columns with "judged on"
// and the note folded under each row; else one block per gate, every line wrapped.
import type { GateResult } from '../../gates/types.js';
import { visible } from '../../core/visible.js';
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

/** The width off a terminal (CI logs), and the narrowest a table is ever fitted to. */
export const DEFAULT_TABLE_WIDTH = 100;
const MIN_WIDTH = 40;
const FOLD_INDENT = '    ';

/** The width terminal text is fitted to: the terminal's columns, or 100 when stdout is not a terminal. */
export function tableWidth(out: { isTTY?: boolean; columns?: number }): number {
  const cols = out.columns ?? 0;
  return out.isTTY === true && Number.isInteger(cols) && cols > 0 ? cols : DEFAULT_TABLE_WIDTH;
}

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

/** `text` wrapped at spaces into lines of at most `width` characters, each after `indent` (a longer word is cut). */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const room = Math.max(1, width - indent.length);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let w = word;
    if (line !== '' && line.length + 1 + w.length <= room) {
      line += ` ${w}`;
      continue;
    }
    if (line !== '') lines.push(line);
    while (w.length > room) {
      lines.push(w.slice(0, room));
      w = w.slice(room);
    }
    line = w;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines.map((l) => `${indent}${l}`.trimEnd());
}

/** Aligned columns (the last one not padded), a dashed rule under the header. */
function columns(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

const fits = (lines: readonly string[], width: number): boolean => lines.every((l) => l.length <= width);

/** The main columns of each gate, with what they leave out ("judged on", the note) wrapped under its row. */
function folded(rows: readonly string[][], width: number): string[] {
  const keep = [0, 1, 2, 3, 4, 6, 7];
  const pick = (cells: readonly string[]): string[] => keep.map((i) => cells[i] ?? '');
  const [head, rule, ...body] = columns(pick(GATE_TABLE_HEADER), rows.map(pick));
  const out = [head!, rule!];
  body.forEach((line, r) => {
    const [, , , , , judged = '', , , note = ''] = rows[r]!;
    out.push(line, ...wrapText(`judged on ${judged}${note ? `; ${note}` : ''}`, width, FOLD_INDENT));
  });
  return out;
}

/** One block per gate: "01 Boot time: pass", then its figures and its note, each wrapped. */
function stacked(rows: readonly string[][], width: number): string[] {
  return rows.flatMap(([id = '', title = '', threshold, observed, interval, judged, n, verdict, note = '']) => [
    ...wrapText(`${id} ${title}: ${verdict}`, width),
    ...wrapText(
      `threshold ${threshold}; observed ${observed}; 95% interval ${interval}; judged on ${judged}; n ${n}`,
      width,
      FOLD_INDENT,
    ),
    ...(note ? wrapText(note, width, FOLD_INDENT) : []),
  ]);
}

/**
 * Render results as plain text no wider than `width` columns (no colours; safe for CI logs); cells are made visible
 * (core/visible.ts) and a tab or newline in one a space before they are measured, so no line passes the width.
 */
export function formatGateTable(results: readonly GateResult[], width = Number.POSITIVE_INFINITY): string {
  const w = Math.max(MIN_WIDTH, width);
  const rows = results.map((r) => gateTableCells(r).map((c) => visible(c.replace(/[\t\n]+/g, ' '))));
  const whole = columns(GATE_TABLE_HEADER, rows);
  if (fits(whole, w)) return whole.join('\n');
  const fold = folded(rows, w);
  return (fits(fold, w) ? fold : stacked(rows, w)).join('\n');
}
