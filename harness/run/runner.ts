// The runner loop: the observer. Runs the given cycles in order against one session (booted or restored), journals
// every event before acting on it, and stops cleanly on Ctrl-C or when the time budget runs out. Preparing the run
// folder is soak.ts's job (a new run) or resume.ts's (a run whose runner died).
import { rmSync } from 'node:fs';
import path from 'node:path';
import { nowMs } from '../core/clock.js';
import { createLogger } from '../core/logger.js';
import { WorkloadModel } from '../check/workload.js';
import type { JournalWriter } from '../journal/writer.js';
import type { HostHandle } from '../session/host-handle.js';
import type { Scenario } from '../scenario/scenario.js';
import { Store } from '../store/store.js';
import { runCycle, type CycleContext } from './cycle.js';
import { hostConfig, journaledHosts, startSession } from './host-journal.js';
import type { Progress } from './progress.js';
import type { RunPaths } from './run-folder.js';

/** How the caller follows and stops a run. */
export interface RunControl {
  progress: Progress;
  /** Set to true (e.g. by SIGINT) to stop after the current cycle. */
  stop: { requested: boolean };
  logLevel: 'debug' | 'info' | 'warn' | 'silent';
}

/** How a run (or this invocation's part of it) ended. */
export interface RunResult {
  runDir: string;
  status: 'complete' | 'interrupted' | 'budget';
  /** Cycles run by this invocation. */
  cycles: number;
}

/** Run `cycles` in order against one session, starting it by boot or by restoring the newest checkpoint. */
export async function runCycles(
  opts: RunControl,
  paths: RunPaths,
  journal: JournalWriter,
  scenario: Scenario,
  cycles: number[],
  firstStart: 'boot' | 'restore',
): Promise<RunResult> {
  const log = createLogger(paths.runLog, opts.logLevel).child({ run: path.basename(paths.dir) });
  const spawnHost = journaledHosts(journal, hostConfig(scenario, paths), paths.hostLog);
  const ctx: CycleContext = {
    scenario,
    store: Store.open(paths.store, { purpose: 'run lease' }), // held for the whole run: gc refuses, restores included
    journal,
    log,
    model: new WorkloadModel(),
    spawnHost,
  };
  let host: HostHandle | null = null;
  let status: RunResult['status'] = 'complete';
  let done = 0;
  let nextStart = firstStart;
  const runClock = nowMs();
  opts.progress.start(cycles.length);
  try {
    for (const cycle of cycles) {
      if (opts.stop.requested) {
        status = 'interrupted';
        break;
      }
      if (scenario.budgetS > 0 && nowMs() - runClock > scenario.budgetS * 1000) {
        status = 'budget';
        break;
      }
      host ??= await startSession(spawnHost, journal, nextStart, cycle, scenario.resumeTimeoutMs);
      nextStart = 'boot';
      const result = await runCycle(ctx, cycle, host);
      host = result.host;
      if (scenario.session === 'fresh' && host) {
        // destroy: the next cycle boots a new session
        await host.stop();
        host = null;
      }
      done++;
      opts.progress.cycle(result.event);
    }
  } finally {
    if (host) {
      host.kill();
      await host.done;
    }
    journal.append({ type: 'run-end', status, cycles: done });
    journal.close();
    ctx.store.close();
    opts.progress.finish();
    rmSync(paths.scratch, { recursive: true, force: true });
  }
  return { runDir: paths.dir, status, cycles: done };
}
