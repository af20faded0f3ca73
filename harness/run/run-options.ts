// What a run was asked for beyond its scenario (where its report goes), kept in the run folder so `soak run --resume`
// writes the report where the first runner would have.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/durable.js';

/** The file in a run folder that holds its RunOptions. */
export const RUN_OPTIONS_FILE = 'run-options.json';

/** Options of a run a resumed runner carries on with. */
export interface RememberedOptions {
  /** Absolute path of the reports folder (`--report-dir`), or null when the run was started with --no-report. */
  reportDir: string | null;
}

/** Store `opts` in run folder `dir` (atomic replace). */
export function rememberOptions(dir: string, opts: RememberedOptions): void {
  writeFileAtomic(path.join(dir, RUN_OPTIONS_FILE), `${JSON.stringify({ schemaVersion: 1, ...opts }, null, 2)}\n`);
}

/** The options stored in run folder `dir`; null when there are none (a run from before they were kept) or unreadable. */
export function recalledOptions(dir: string): RememberedOptions | null {
  try {
    const o = JSON.parse(readFileSync(path.join(dir, RUN_OPTIONS_FILE), 'utf8')) as { reportDir?: unknown };
    return { reportDir: typeof o.reportDir === 'string' ? o.reportDir : null };
  } catch {
    return null;
  }
}
