// cycles.csv: one row per cycle with a header row, via csv-stringify.
import { stringify } from 'csv-stringify/sync';
import type { CycleRow } from '../summary-types.js';

/** Column order of cycles.csv (the CycleRow fields). */
export const CYCLE_COLUMNS: ReadonlyArray<keyof CycleRow> = [
  'cycle', 'phase', 'observedPhase', 'outcome', 'downtimeMs', 'killStep', 'restoredSeq', 'restoredStep', 'lostSteps', 'restoreKills', 'violations',
];

/** Render cycles.csv; nulls become empty cells. */
export function cyclesCsv(rows: readonly CycleRow[]): string {
  return stringify(rows as CycleRow[], { header: true, columns: [...CYCLE_COLUMNS] });
}
