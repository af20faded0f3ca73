// cycles.csv: one row per cycle with a header row, via csv-stringify.
import { stringify } from 'csv-stringify/sync';
import { cycleRow } from '../../analysis/tables.js';
import { visible } from '../../core/visible.js';
import type { CycleRow, CycleTable } from '../../analysis/summary.js';
import { FIELD_ORDER } from '../../journal/codec.js';

/** Rows per csv-stringify call: a million cycles become CSV a slice at a time, never a million row objects at once. */
const SLICE_ROWS = 10_000;

/** Column order of cycles.csv: the journal's cycle event fields in the codec's order (a session's rows: summary.sessions). */
export const CYCLE_COLUMNS: readonly (keyof CycleRow)[] = FIELD_ORDER.cycle.filter((f) => f !== 'session');

/** Render cycles.csv; nulls become empty cells, text cells have control and bidi characters made visible. */
export function cyclesCsv(cycles: CycleTable): string {
  const parts: string[] = [];
  for (let from = 0; from === 0 || from < cycles.length; from += SLICE_ROWS) {
    const rows: CycleRow[] = [];
    for (let i = from; i < Math.min(cycles.length, from + SLICE_ROWS); i++) rows.push(cycleRow(cycles, i));
    parts.push(
      stringify(rows, { header: from === 0, columns: [...CYCLE_COLUMNS], cast: { string: (v) => visible(v) } }),
    );
  }
  return parts.join('');
}
