// Start a new soak: ask a describing session host for the target's facts, create the run folder, journal run-start
// with the environment, then run every cycle this run or shard owns.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nowMs } from '../core/clock.js';
import { captureEnvironment, type Environment } from '../core/environment.js';
import type { RunStartEvent } from '../journal/events.js';
import { JournalWriter } from '../journal/writer.js';
import type { Scenario } from '../scenario/scenario.js';
import { describeTarget } from '../session/describe.js';
import { hostConfig } from './host-journal.js';
import { createRunFolder, resetScratch, runPaths, type RunPaths } from './run-folder.js';
import type { RunLock } from './run-lock.js';
import { runCycles, type RunControl, type RunResult } from './runner.js';
import { runSessions } from './sessions.js';
import { cycleIds, type Shard } from '../scenario/shard.js';
import { bootSampleIds } from './boot-samples.js';
import { rememberOptions, type RememberedOptions } from './run-options.js';
import { createLedger, refuseUnreachableLedger } from './effects-run.js';
import { withAdapterPromises } from './probe-run.js';
import { refuseMemoryPressure } from '../nemesis/memory-pressure.js';

/** A new run: its scenario, where run folders go, and which shard (if any) of the cycles it runs. */
export interface RunOptions extends RunControl {
  scenario: Scenario;
  /** Parent folder of run folders (default runs/). */
  runsDir: string;
  shard?: Shard;
  /** The nightly key the scenario's seed was derived from (`--seed-from`), journaled in run-start. */
  seedKey?: string;
  /** Options a resumed runner carries on with, stored in the run folder. */
  remember?: RememberedOptions;
}

/** What run-start records beyond the scenario and environment (a shard, the nightly key, kills typed by a person). */
export type RunStartExtras = Pick<RunStartEvent, 'shard' | 'seedKey' | 'manualKills'>;

/**
 * A new run folder, locked for `purpose` (run-lock.ts; the caller releases it), with its journal open and run-start
 * written, scratch reset. Everything slow comes first, so the folder, its journal and run-start appear together: a
 * runner killed before leaves no run folder that cannot be resumed for lack of a run-start.
 */
export async function startRunFolder(
  runsDir: string,
  asked: Scenario,
  extras: RunStartExtras = {},
  purpose = 'soak run',
): Promise<{ id: string; paths: RunPaths; journal: JournalWriter; lock: RunLock; scenario: Scenario }> {
  refuseMemoryPressure(asked); // exit 3 before anything runs: no memory cgroup to squeeze
  const target = await describeScenarioTarget(asked);
  const scenario = withAdapterPromises(asked, target); // journaled as run: a --resume probes alike
  refuseUnreachableLedger(scenario, target); // exit 3 before any folder or cycle: the adapter cannot reach the ledger
  const environment = captureEnvironment(target);
  const { id, paths, lock } = createRunFolder(runsDir, scenario, extras.shard, new Date(), purpose);
  try {
    createLedger(paths.dir, scenario); // before run-start: a journal that enables effects always has its ledger
    const runStart = nowMs();
    const journal = new JournalWriter(paths.journal, () => nowMs() - runStart);
    journal.append({
      type: 'run-start',
      runId: id,
      startedAt: new Date().toISOString(),
      scenario,
      environment,
      ...extras,
    });
    resetScratch(paths);
    return { id, paths, journal, lock, scenario };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Start a new run folder and run every cycle this run (or shard) owns. */
export async function runSoak(opts: RunOptions): Promise<RunResult> {
  const { shard } = opts;
  const { paths, journal, lock, scenario } = await startRunFolder(opts.runsDir, opts.scenario, {
    ...(shard ? { shard } : {}),
    ...(opts.seedKey !== undefined ? { seedKey: opts.seedKey } : {}),
  });
  try {
    if (opts.remember) rememberOptions(paths.dir, opts.remember);
    const cycles = cycleIds(scenario.cycles, shard);
    const samples = bootSampleIds(scenario.bootSamples, shard);
    if (scenario.sessions > 1) return await runSessions(opts, paths, journal, scenario, cycles, samples);
    return await runCycles(opts, paths, journal, scenario, cycles, 'boot', samples);
  } finally {
    lock.release();
  }
}

/**
 * The host owns the target: a short-lived host in 'describe' mode reports the target's facts without booting it, so
 * run-start, journaled before anything acts, carries the environment. It works in a temporary folder of its own.
 */
export async function describeScenarioTarget(scenario: Scenario): Promise<Environment['target']> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-describe-'));
  try {
    const paths = runPaths(tmp);
    return await describeTarget(hostConfig(scenario, paths), paths.hostLog, scenario.resumeTimeoutMs);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
