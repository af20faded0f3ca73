// The survival matrix: per class of guest state, how many resumes kept it, lost it, changed it or could not have it,
// and the Wilson 95% interval of "survives" over the resumes where it applies. Pure: a later gate reads the same rows.
import { wilson } from '../stats/wilson.js';
import { STATE_CLASSES, type ObservationStatus, type ProbeReport, type StateClass } from './survival.js';

/** One class's row. `n`: resumes where it applied (all but not-applicable); `interval`: of survives/n, null when 0. */
export interface MatrixRow {
  class: StateClass;
  title: string;
  survives: number;
  lost: number;
  changed: number;
  notApplicable: number;
  n: number;
  interval: [number, number] | null;
  /** Up to 3 distinct details seen for a status other than survives (or for survives when that is all there is). */
  examples: string[];
}

const KEY: Record<ObservationStatus, 'survives' | 'lost' | 'changed' | 'notApplicable'> = {
  survives: 'survives',
  lost: 'lost',
  changed: 'changed',
  'not-applicable': 'notApplicable',
};

/** The matrix over the reports of every measured resume (one report per resume). */
export function tallyMatrix(reports: readonly ProbeReport[]): MatrixRow[] {
  return STATE_CLASSES.map(([id, title]) => {
    const row: MatrixRow = {
      class: id,
      title,
      survives: 0,
      lost: 0,
      changed: 0,
      notApplicable: 0,
      n: 0,
      interval: null,
      examples: [],
    };
    const seen = { other: new Set<string>(), survives: new Set<string>() };
    for (const r of reports) {
      const o = r.observations.find((x) => x.class === id);
      if (o === undefined) continue;
      row[KEY[o.status]]++;
      (o.status === 'survives' ? seen.survives : seen.other).add(`${o.status}: ${o.detail}`);
    }
    row.n = row.survives + row.lost + row.changed;
    row.interval = wilson(row.survives, row.n);
    row.examples = [...(seen.other.size > 0 ? seen.other : seen.survives)].slice(0, 3);
    return row;
  });
}
