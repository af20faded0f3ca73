// The runner: the observer. Creates the run folder, boots the session, runs the cycles, journals every event
// before acting on it, and stops cleanly on Ctrl-C or when the time budget runs out.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { nowMs } from './clock.js';
import { runCycle, type CycleContext } from './cycle.js';
import { captureEnvironment } from './environment.js';
import type { CycleEvent } from './events.js';
import { HostHandle, isFullHeartbeat } from './host-handle.js';
import type { HostConfig } from './host-protocol.js';
import { JournalWriter } from './journal.js';
import { createLogger, type Logger } from './logger.js';
import type { Progress } from './progress.js';
import type { Scenario } from './scenario.js';
import { createTarget } from './targets/index.js';
import { WorkloadModel } from './workload.js';

export interface RunOptions {
  scenario: Scenario;
  /** Parent folder of run folders (default runs/). */
  runsDir: string;
  progress: Progress;
  /** Set to true (e.g. by SIGINT) to stop after the current cycle. */
  stop: { requested: boolean };
  logLevel: 'debug' | 'info' | 'warn' | 'silent';
}

export interface RunResult {
  runDir: string;
  status: 'complete' | 'interrupted' | 'budget';
  cycles: number;
}

function newRunId(scenario: Scenario): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..+/, '');
  const slug = scenario.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'scenario';
  return `${stamp}-${slug}-s${scenario.seed}`;
}

function makeRunDir(runsDir: string, scenario: Scenario): { id: string; dir: string } {
  mkdirSync(runsDir, { recursive: true });
  const base = newRunId(scenario);
  for (let k = 1; ; k++) {
    const id = k === 1 ? base : `${base}-${k}`;
    const dir = path.join(runsDir, id);
    if (!existsSync(dir)) {
      mkdirSync(dir);
      return { id, dir };
    }
  }
}

function linkLatest(runsDir: string, id: string): void {
  const link = path.join(runsDir, 'latest');
  try {
    unlinkSync(link);
  } catch {
    // no previous link
  }
  try {
    symlinkSync(id, link);
  } catch {
    // a link is a convenience only
  }
}

/** Run a soak: boot, then cycles until done, stopped, or out of budget. */
export async function runSoak(opts: RunOptions): Promise<RunResult> {
  const { scenario } = opts;
  const { id, dir } = makeRunDir(opts.runsDir, scenario);
  linkLatest(opts.runsDir, id);
  const runStart = nowMs();
  const clock = (): number => nowMs() - runStart;
  const journal = new JournalWriter(path.join(dir, 'journal.ndjson'), clock);
  const log: Logger = createLogger(path.join(dir, 'run.log'), opts.logLevel).child({ run: id });
  const storeDir = path.join(dir, 'store');
  const scratchDir = path.join(dir, 'scratch');
  mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
  const hostLog = path.join(dir, 'hosts.log');

  const hostConfig = (mode: 'boot' | 'restore'): HostConfig => ({
    mode,
    target: scenario.target,
    targetOptions: scenario.targetOptions,
    storeDir,
    sessionDir: path.join(dir, 'session'),
    scratchDir,
    stepMs: scenario.stepMs,
    checkpointEveryMs: scenario.checkpoint.everyMs,
    skewMs: scenario.skewMs,
    injectRestoreDelayMs: scenario.injectRestoreDelayMs,
  });

  const spawnHost = (mode: 'boot' | 'restore', cycle: number): HostHandle => {
    const h = new HostHandle(hostConfig(mode), hostLog);
    journal.append({ type: 'host-start', cycle, pid: h.pid, mode });
    h.on('msg', (msg) => {
      if (msg.ev === 'ckpt-commit') {
        const { ev: _ev, ...rest } = msg;
        journal.append({ type: 'checkpoint', cycle, ...rest });
      }
    });
    return h;
  };

  const boot = async (cycle: number): Promise<HostHandle> => {
    const h = spawnHost('boot', cycle);
    const [{ msg: booted }, { msg: hb }] = await Promise.all([
      h.waitFor((m) => m.ev === 'booted', scenario.resumeTimeoutMs),
      h.waitFor(isFullHeartbeat, scenario.resumeTimeoutMs),
      h.waitFor((m) => m.ev === 'ckpt-commit', scenario.resumeTimeoutMs),
    ]);
    journal.append({ type: 'boot', cycle, bootMs: (booted as { bootMs: number }).bootMs, nonce: hb.nonce });
    return h;
  };

  // Describe the target in-process (no boot) so run-start, journaled before anything acts, carries the environment.
  const probe = await createTarget(scenario.target, { workDir: mkdtempSync(path.join(scratchDir, 'describe-')), sessionDir: scratchDir, stepMs: scenario.stepMs, options: scenario.targetOptions });
  const targetInfo = probe.describe();
  await probe.destroy();
  journal.append({ type: 'run-start', runId: id, startedAt: new Date().toISOString(), scenario, environment: captureEnvironment(targetInfo) });

  const ctx: CycleContext = { scenario, storeDir, journal, log, model: new WorkloadModel(), spawnHost };
  let host: HostHandle | null = null;
  let status: RunResult['status'] = 'complete';
  let done = 0;
  opts.progress.start(scenario.cycles);
  try {
    for (let cycle = 1; cycle <= scenario.cycles; cycle++) {
      if (opts.stop.requested) {
        status = 'interrupted';
        break;
      }
      if (scenario.budgetS > 0 && clock() > scenario.budgetS * 1000) {
        status = 'budget';
        break;
      }
      host ??= await boot(cycle);
      const result: { event: CycleEvent; host: HostHandle | null } = await runCycle(ctx, cycle, host);
      host = result.host;
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
    opts.progress.finish();
    rmSync(scratchDir, { recursive: true, force: true });
  }
  return { runDir: dir, status, cycles: done };
}
