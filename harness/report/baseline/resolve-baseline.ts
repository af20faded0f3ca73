// `--baseline auto`: the newest earlier dated report of the same scenario and target in the reports folder.
import path from 'node:path';
import { listReports } from '../report-list.js';

/** The run a report is being written for: what an automatic baseline must match and precede. */
export interface BaselineFor {
  scenario: string;
  target: string;
  date: string;
  startedAt: string;
}

/** When a report ran: its start time, or its date when the start was not stored. */
function when(e: { date: string; startedAt: string }): string {
  return e.startedAt !== '' ? e.startedAt : `${e.date}T00:00:00.000Z`;
}

/**
 * The folder of the newest readable report in `reportsDir` with the same scenario and target that started strictly
 * before `run` (a report of the same run written again is not its own baseline); null when there is none.
 */
export async function autoBaseline(reportsDir: string, run: BaselineFor): Promise<string | null> {
  let entries;
  try {
    entries = await listReports(reportsDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // no reports folder yet: the first night
    throw err;
  }
  const earlier = entries.filter(
    (e) => e.verdict !== 'unreadable' && e.scenario === run.scenario && e.target === run.target && when(e) < when(run),
  );
  earlier.sort((a, b) => (when(a) < when(b) ? 1 : when(a) > when(b) ? -1 : a.dir < b.dir ? 1 : -1));
  const newest = earlier[0];
  return newest === undefined ? null : path.join(reportsDir, newest.dir);
}
