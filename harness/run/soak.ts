// Start a new soak: create the run folder, journal run-start (with the environment and the target's facts, asked of
// a describing session host), then run every cycle this run or shard owns.
import { nowMs } from '../core/clock.js';
import { captureEnvironment } from '../core/environment.js';
import { JournalWriter } from '../journal/writer.js';
import type { Scenario } from '../scenario/scenario.js';
import { describeTarget } from '../session/describe.js';
import { hostConfig } from './host-journal.js';
import { createRunFolder, resetScratch } from './run-folder.js';
import { runCycles, type RunControl, type RunResult } from './runner.js';
import { cycleIds, type Shard } from './shard.js';

/** A new run: its scenario, where run folders go, and which shard (if any) of the cycles it runs. */
export interface RunOptions extends RunControl {
  scenario: Scenario;
  /** Parent folder of run folders (default runs/). */
  runsDir: string;
  shard?: Shard;
}

/** Start a new run folder and run every cycle this run (or shard) owns. */
export async function runSoak(opts: RunOptions): Promise<RunResult> {
  const { scenario, shard } = opts;
  const { id, paths } = createRunFolder(opts.runsDir, scenario, shard);
  resetScratch(paths);
  // The host owns the target: a short-lived host in 'describe' mode reports its facts (no boot), so run-start,
  // journaled before anything acts, carries the environment. The run's clock starts after it.
  const targetInfo = await describeTarget(hostConfig(scenario, paths), paths.hostLog, scenario.resumeTimeoutMs);
  const runStart = nowMs();
  const journal = new JournalWriter(paths.journal, () => nowMs() - runStart);
  journal.append({
    type: 'run-start',
    runId: id,
    startedAt: new Date().toISOString(),
    scenario,
    environment: captureEnvironment(targetInfo),
    ...(shard ? { shard } : {}),
  });
  return runCycles(opts, paths, journal, scenario, cycleIds(scenario.cycles, shard), 'boot');
}
