// Watching a `soak run` process that is still running: its journal as far as it is written (a torn last line
// skipped), and a poll that fails at once, with the runner's output, when the runner ends before what it waits for.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Result, ResultPromise } from 'execa';
import type { JournalEvent } from '../../harness/journal/events.js';
import { describeResult } from './cli.js';

/** The events of run folder `dir`'s journal so far (none before it exists; a line still being written skipped). */
export function journalSoFar(dir: string): JournalEvent[] {
  const file = path.join(dir, 'journal.ndjson');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as JournalEvent];
      } catch {
        return [];
      }
    });
}

/** Poll until `probe` holds; fails if the runner `child` ends first. */
export async function untilWhileRunning(probe: () => boolean, child: ResultPromise, what: string): Promise<void> {
  const state: { ended: Result | null } = { ended: null };
  void child.then((r) => (state.ended = r));
  while (!probe()) {
    if (state.ended) throw new Error(`${what}: the runner ended first\n${describeResult(state.ended)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
