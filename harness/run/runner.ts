// The runner: the observer. Creates (or picks up) the run folder, boots the session, runs the cycles, journals every
// event before acting on it, and stops cleanly on Ctrl-C or when the time budget runs out.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { nowMs } from '../core/clock.js';
import { runCycle, type CycleContext } from './cycle.js';
import { captureEnvironment } from '../core/environment.js';
import { InputError } from '../core/errors.js';
import type { JournalEvent, RunStartEvent } from '../journal/events.js';
import { HostHandle, isEv, isFullHeartbeat } from '../session/host-handle.js';
import type { HostConfig, HostMessage } from '../session/protocol.js';
import { JournalWriter, streamJournal } from '../journal/writer.js';
import { createLogger } from '../core/logger.js';
import { hostGroups, killOrphans } from './orphans.js';
import type { Progress } from './progress.js';
import { resolveRunDir, JOURNAL_FILE } from '../analysis/load-runs.js';
import type { Scenario } from '../scenario/scenario.js';
import { Store } from '../store/store.js';
import { createTarget } from '../targets/registry.js';
import { WorkloadModel } from '../check/workload.js';

export interface Shard {
  index: number;
  count: number;
}

interface Common {
  progress: Progress;
  /** Set to true (e.g. by SIGINT) to stop after the current cycle. */
  stop: { requested: boolean };
  logLevel: 'debug' | 'info' | 'warn' | 'silent';
}

export interface RunOptions extends Common {
  scenario: Scenario;
  /** Parent folder of run folders (default runs/). */
  runsDir: string;
  shard?: Shard;
}

export interface ResumeOptions extends Common {
  runDir: string;
}

export interface RunResult {
  runDir: string;
  status: 'complete' | 'interrupted' | 'budget';
  /** Cycles run by this invocation. */
  cycles: number;
}

/** Cycle ids a run (or one shard of it) owns: 1..cycles, or those with (c - 1) % count === index. */
export function cycleIds(cycles: number, shard?: Shard): number[] {
  const ids: number[] = [];
  for (let c = 1; c <= cycles; c++) if (!shard || (c - 1) % shard.count === shard.index) ids.push(c);
  return ids;
}

function newRunId(scenario: Scenario, shard?: Shard): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..+/, '');
  const slug =
    scenario.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'scenario';
  return `${stamp}-${slug}-s${scenario.seed}${shard ? `-shard${shard.index}of${shard.count}` : ''}`;
}

function makeRunDir(runsDir: string, scenario: Scenario, shard?: Shard): { id: string; dir: string } {
  mkdirSync(runsDir, { recursive: true });
  const base = newRunId(scenario, shard);
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

/** Start a new run folder and run every cycle this run (or shard) owns. */
export async function runSoak(opts: RunOptions): Promise<RunResult> {
  const { scenario, shard } = opts;
  const { id, dir } = makeRunDir(opts.runsDir, scenario, shard);
  linkLatest(opts.runsDir, id);
  const runStart = nowMs();
  const journal = new JournalWriter(path.join(dir, JOURNAL_FILE), () => nowMs() - runStart);
  const scratchDir = path.join(dir, 'scratch');
  mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
  // Describe the target in-process (no boot) so run-start, journaled before anything acts, carries the environment.
  const probe = await createTarget(scenario.target, {
    workDir: mkdtempSync(path.join(scratchDir, 'describe-')),
    sessionDir: scratchDir,
    stepMs: scenario.stepMs,
    options: scenario.targetOptions,
  });
  const targetInfo = probe.describe();
  await probe.destroy();
  const start = {
    type: 'run-start',
    runId: id,
    startedAt: new Date().toISOString(),
    scenario,
    environment: captureEnvironment(targetInfo),
    ...(shard ? { shard } : {}),
  } as const;
  journal.append(start);
  return drive(opts, dir, journal, scenario, cycleIds(scenario.cycles, shard), 'boot');
}

/** Pick up a run whose runner died: kill its orphaned hosts, restore the session, run the cycles not yet finished. */
export async function resumeSoak(opts: ResumeOptions): Promise<RunResult> {
  const dir = resolveRunDir(opts.runDir);
  const file = path.join(dir, JOURNAL_FILE);
  // One streamed pass over the journal (a long soak's journal need not fit in memory): what resuming needs of it.
  let start: RunStartEvent | undefined;
  const finished = new Set<number>();
  const hosts: JournalEvent[] = [];
  let lastT = 0;
  streamJournal(file, (e) => {
    if (e.type === 'run-start') start ??= e;
    else if (e.type === 'cycle') finished.add(e.cycle);
    else if (e.type === 'host-start') hosts.push(e);
    lastT = e.t;
  });
  if (!start) throw new InputError(`${file} has no run-start event: nothing to resume`);
  const remaining = cycleIds(start.scenario.cycles, start.shard).filter((c) => !finished.has(c));
  const killedGroups = killOrphans(hostGroups(hosts), dir);
  const resumedAt = nowMs();
  const journal = new JournalWriter(file, () => lastT + (nowMs() - resumedAt));
  journal.append({ type: 'run-resume', killedGroups, remaining: remaining.length });
  rmSync(path.join(dir, 'scratch'), { recursive: true, force: true });
  mkdirSync(path.join(dir, 'scratch'), { recursive: true, mode: 0o700 });
  const store = Store.open(path.join(dir, 'store'));
  const hasCheckpoint = store.latest() !== null;
  store.close();
  return drive(opts, dir, journal, start.scenario, remaining, hasCheckpoint ? 'restore' : 'boot');
}

/** Run `cycles` in order against one session, starting it by boot or by restoring the newest checkpoint. */
async function drive(
  opts: Common,
  dir: string,
  journal: JournalWriter,
  scenario: Scenario,
  cycles: number[],
  firstStart: 'boot' | 'restore',
): Promise<RunResult> {
  const log = createLogger(path.join(dir, 'run.log'), opts.logLevel).child({ run: path.basename(dir) });
  const storeDir = path.join(dir, 'store');
  const scratchDir = path.join(dir, 'scratch');
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
  let targetInfoJournaled = false;
  const spawnHost = (mode: 'boot' | 'restore', cycle: number): HostHandle => {
    const h = new HostHandle(hostConfig(mode), hostLog);
    journal.append({ type: 'host-start', cycle, pid: h.pid, mode });
    h.on('msg', (msg) => {
      if (msg.ev === 'ckpt-commit') {
        const { ev: _ev, ...rest } = msg;
        journal.append({ type: 'checkpoint', cycle, ...rest });
      } else if (msg.ev === 'target' && msg.live && !targetInfoJournaled) {
        // What only a running target knows (accelerator chosen, image hash, QEMU version) completes the environment.
        targetInfoJournaled = true;
        journal.append({ type: 'target-info', cycle, info: msg.info });
      }
    });
    return h;
  };

  /** Start the session and wait until it is up and has a committed checkpoint. */
  const startSession = async (mode: 'boot' | 'restore', cycle: number): Promise<HostHandle> => {
    const h = spawnHost(mode, cycle);
    const first = (ev: HostMessage['ev']) => h.waitFor(isEv(ev), scenario.resumeTimeoutMs);
    const [{ msg: up }, { msg: hb }] = await Promise.all([
      first(mode === 'boot' ? 'booted' : 'restore-end'),
      h.waitFor(isFullHeartbeat, scenario.resumeTimeoutMs),
      first('ckpt-commit'),
    ]);
    if (up.ev === 'booted') journal.append({ type: 'boot', cycle, bootMs: up.bootMs, nonce: hb.nonce });
    else if (up.ev === 'restore-end')
      journal.append({ type: 'restore', cycle, seq: up.seq, step: up.step, restoreMs: up.restoreMs });
    return h;
  };

  const ctx: CycleContext = {
    scenario,
    store: Store.open(storeDir),
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
      host ??= await startSession(nextStart, cycle);
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
    rmSync(scratchDir, { recursive: true, force: true });
  }
  return { runDir: dir, status, cycles: done };
}
