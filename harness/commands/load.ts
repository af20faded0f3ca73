// Load run folders for a command, telling the user on stderr when a journal's torn last line was dropped.
import { loadRuns, type LoadedRuns } from '../analysis/load-runs.js';

export async function loadRunsForCommand(dirs: string[]): Promise<LoadedRuns> {
  const loaded = await loadRuns(dirs);
  for (const file of loaded.tornTails)
    process.stderr.write(`soak: note: ${file} ended in a torn line (a writer died mid-append); it was dropped\n`);
  return loaded;
}
