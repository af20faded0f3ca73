// Locate and load run folders (runs/<id>/): journal -> analysis. Missing folders are bad input (exit 3).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { FOLD_DEFAULTS, foldJournal, type FoldOptions } from './parallel.js';
import { RunAccumulator } from './accumulator.js';
import { InputError } from '../core/errors.js';
import { visible } from '../core/visible.js';
import type { RunAnalysis } from './summary.js';

export const JOURNAL_FILE = 'journal.ndjson';

/** Check that `dir` is a run folder and return its absolute path. */
export function resolveRunDir(dir: string): string {
  const abs = path.resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory())
    throw new InputError(`run folder ${abs} does not exist (pass a folder made by "soak run", e.g. runs/latest)`);
  if (!existsSync(path.join(abs, JOURNAL_FILE)))
    throw new InputError(`run folder ${abs} has no ${JOURNAL_FILE} (is it a folder made by "soak run"?)`);
  return abs;
}

export interface LoadedRuns {
  dirs: string[];
  analysis: RunAnalysis;
  /** Run folders whose journal ended in a torn line (dropped). */
  tornTails: string[];
}

/**
 * Load and analyse one or more run folders as one sample, streaming each journal (no journal is held in memory; a
 * long one is read on several threads). `options` exist for tests and benchmarks; the defaults are the fast ones.
 */
export async function loadRuns(dirs: string[], options: Partial<FoldOptions> = {}): Promise<LoadedRuns> {
  if (dirs.length === 0) throw new InputError('no run folder given (pass at least one, e.g. runs/latest)');
  const abs = dirs.map(resolveRunDir);
  const acc = new RunAccumulator();
  const tornTails: string[] = [];
  let previous = '';
  for (const [i, d] of abs.entries()) {
    const file = path.join(d, JOURNAL_FILE);
    if (i > 0) acc.nextRun(previous);
    if ((await foldJournal(acc, file, { ...FOLD_DEFAULTS, ...options })) !== null) tornTails.push(file);
    previous = file;
  }
  return { dirs: abs, analysis: acc.finish(previous), tornTails };
}

/** The line telling the user a journal's torn last line was dropped. */
export function tornTailNote(file: string): string {
  return `soak: note: ${file} ended in a torn line (a writer died mid-append); it was dropped`;
}

/** Tell the user (stderr by default) about each torn journal tail loadRuns dropped; returns `loaded` for chaining. */
export function noteTornTails(loaded: LoadedRuns, write: (line: string) => void = writeStderr): LoadedRuns {
  for (const file of loaded.tornTails) write(`${tornTailNote(file)}\n`);
  return loaded;
}

function writeStderr(line: string): void {
  process.stderr.write(visible(line));
}
