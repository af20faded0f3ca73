// The demo's session driver: one session on a target, checkpointing at the scenario's cadence, journaled as a soak
// run. When its host dies by anyone's hand (a person's kill -9, or the page's button) it notices the child's exit,
// journals the kill as a cycle's and hands it to the soak's interruption (run/interruption.ts: restore from the newest
// complete checkpoint, again if a person kills the restore too, check, journal), then shows the outcome.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { nowMs } from '../core/clock.js';
import { createLogger, type Logger } from '../core/logger.js';
import { WorkloadModel } from '../check/workload.js';
import type { CycleEvent, KillPhase, RunStatus } from '../journal/events.js';
import { JournalWriter } from '../journal/writer.js';
import { hostConfig, journaledHosts, startSession, type SpawnHost } from '../run/host-journal.js';
import { hostTimeouts, type HostTimeouts } from '../scenario/timeouts.js';
import type { RunPaths } from '../run/run-folder.js';
import type { RunLock } from '../run/run-lock.js';
import { startRunFolder } from '../run/soak.js';
import { interruption, type InterruptionContext } from '../run/interruption.js';
import { journalKill } from '../nemesis/strike.js';
import type { Scenario } from '../scenario/scenario.js';
import type { HostHandle } from '../session/host-handle.js';
import { sweepDeadLockTemps } from '../store/lock.js';
import { Store } from '../store/store.js';
import { DemoState, type KilledBy } from './state.js';
import { interruptionView } from './outcome-view.js';
import { tailLines } from '../live/tail.js';
import { groupReader } from './group.js';
import { RunEffects } from '../run/effects-run.js';
import { effectsView } from './effects-view.js';

const KILLED_BY: Record<KilledBy, string> = {
  person: 'killed by a person',
  button: 'killed by the button',
  host: 'killed with the whole host',
};

/** How the demo is started. */
export interface DemoOptions {
  scenario: Scenario;
  /** Parent folder of run folders. */
  runsDir: string;
  logLevel: 'debug' | 'info' | 'warn' | 'silent';
}

/** One session of a demo of many (grid.ts): its folders, its view of the run's journal, what it tells the grid. */
export interface GridMember {
  paths: RunPaths;
  journal: JournalWriter;
  /** Told after each interruption: the cycle journaled, who killed it, and the kill's monotonic time. */
  interrupted: (event: CycleEvent, by: KilledBy, tKill: number) => void;
}

/** One supervised session: start it, kill it from the page, stop it (run-end). */
export class DemoSession {
  readonly state: DemoState;
  private host: HostHandle | null = null;
  private stopping = false;
  private nextCycle = 1;
  private buttonKillAt: number | null = null;
  private killedBy: KilledBy = 'button';
  private work: Promise<void> = Promise.resolve();
  private readonly spawnHost: SpawnHost;
  private readonly timeouts: HostTimeouts;
  private readonly model = new WorkloadModel();
  private readonly log: Logger;

  private constructor(
    private readonly scenario: Scenario,
    readonly paths: RunPaths,
    private readonly journal: JournalWriter,
    private readonly store: Store,
    /** The run's lock: held by a demo of one session; null for a session of a grid (grid.ts owns the run). */
    private readonly lock: RunLock | null,
    logLevel: DemoOptions['logLevel'],
    private readonly effects: RunEffects | null,
    private readonly member: GridMember | null = null,
  ) {
    this.log = createLogger(paths.runLog, logLevel).child({ run: path.basename(paths.dir), demo: true });
    const hosted = effects ? { ...scenario, targetOptions: effects.targetOptions(scenario) } : scenario;
    this.spawnHost = journaledHosts(journal, hostConfig(hosted, paths), paths.hostLog);
    this.timeouts = hostTimeouts(scenario);
    const log = path.join(paths.session, 'workspace', 'log.txt');
    this.state = new DemoState(scenario.target, paths.dir, new WorkloadModel(), () => tailLines(log, 8), groupReader());
    if (effects) this.state.effects = () => effectsView(effects);
  }

  /** Create the run folder (run-start marks its kills as typed by a person) and boot the session. */
  static async start(opts: DemoOptions): Promise<DemoSession> {
    const { scenario } = opts;
    const { paths, journal, lock } = await startRunFolder(opts.runsDir, scenario, { manualKills: true }, 'soak demo');
    let store: Store;
    let effects: RunEffects | null;
    try {
      effects = await RunEffects.start(paths.dir, scenario); // the ledger serves before the session could emit
      store = Store.open(paths.store, { purpose: 'demo lease' });
    } catch (err) {
      journal.close();
      lock.release();
      throw err;
    }
    const demo = new DemoSession(scenario, paths, journal, store, lock, opts.logLevel, effects);
    demo.work = demo.boot();
    return demo;
  }

  /** Boot one session of a grid in its own folders (sessions/<i>/, made by the grid) on the grid's run. */
  static member(scenario: Scenario, member: GridMember, logLevel: DemoOptions['logLevel']): DemoSession {
    const store = Store.open(member.paths.store, { purpose: 'demo lease' });
    const demo = new DemoSession(scenario, member.paths, member.journal, store, null, logLevel, null, member);
    demo.work = demo.boot();
    return demo;
  }

  /** True while a live host can be killed now (no kill of it under way, not stopping). */
  killable(): boolean {
    const h = this.host;
    return h !== null && !h.exited && !this.stopping && this.buttonKillAt === null;
  }

  /** Resolves once the session is up (booted, or resumed after the latest interruption) or could not be. */
  settled(): Promise<void> {
    return this.work;
  }

  /**
   * The page's button: SIGKILL the session host's process group now (what a person would type). False, doing nothing,
   * while there is no live session or a kill of it is already under way: a second click (or a thousand POSTs) must not
   * move the kill's time, from which the downtime is measured.
   */
  killNow(by: KilledBy = 'button'): boolean {
    if (!this.killable()) return false;
    this.killedBy = by;
    this.buttonKillAt = this.host!.kill();
    return true;
  }

  /** Stop: wait for a resume in progress, stop the session host, journal run-end; returns the status journaled. */
  async stop(): Promise<RunStatus> {
    this.stopping = true;
    await this.work.catch(() => {});
    await this.host?.stop(this.timeouts.hostMs);
    this.state.set('stopped');
    const done = this.state.counts.interruptions;
    if (this.lock) {
      this.effects?.account(this.journal, done, null)(); // the last session's requests, without a claim to judge
      await this.effects?.close();
      // The demo's plan is "until the person stops it": Ctrl-C or SIGTERM is how it completes.
      this.journal.append({ type: 'run-end', status: 'complete', cycles: done });
      this.journal.close();
    }
    this.store.close();
    // a host SIGKILLed while writing its writer lock (a kill at its first checkpoint) left the lock's temp file: its
    // PID is dead now that every host is gone, so the run ends with locks/ as clean as a gc would leave it
    sweepDeadLockTemps(this.paths.store);
    rmSync(this.paths.scratch, { recursive: true, force: true });
    this.lock?.release();
    return 'complete';
  }

  private async boot(): Promise<void> {
    this.state.set('booting');
    try {
      const h = await startSession(this.spawnHost, this.journal, 'boot', this.nextCycle, this.timeouts.resumeMs, (s) =>
        this.follow(s),
      );
      this.up(h, 'running', `booted (host ${h.pid}); checkpoint every ${this.scenario.checkpoint.everyMs} ms`);
    } catch (err) {
      if (this.stopping) return;
      this.state.set('failed', `could not boot: ${(err as Error).message}`);
      this.log.error({ err }, 'demo boot failed');
    }
  }

  /** Show `h` on the page: its PID and everything it says. */
  private follow(h: HostHandle): void {
    this.state.pid = h.pid;
    h.on('msg', (msg) => {
      const s = this.state;
      if (msg.ev === 'hb') {
        s.step = msg.step;
        if (msg.full && msg.fs && msg.mem && msg.tool) {
          s.nonce = msg.nonce;
          s.reported = { step: msg.step, fs: msg.fs.digest, mem: msg.mem.digest, tool: msg.tool.digest };
        }
      } else if (msg.ev === 'ckpt-begin') s.inFlight = true;
      else if (msg.ev === 'ckpt-commit') {
        s.inFlight = false;
        s.checkpoint = { seq: msg.seq, step: msg.step, at: nowMs() };
      } else if (msg.ev === 'restore-begin') s.note(`restoring checkpoint ${msg.seq} (step ${msg.step})`);
    });
  }

  /** `h` is the session now: a death from here on is an interruption. */
  private up(h: HostHandle, as: 'running' | 'verified', why: string): void {
    this.host = h;
    this.state.inFlight = h.inFlightSeq !== null;
    this.state.set(as, why);
    void h.died.then((tNoticed) => {
      if (this.stopping || h !== this.host) return;
      // the monotonic clock's origin is this process's start: tNoticed in wall-clock terms, for measuring from outside
      this.state.noticedAtEpochMs = performance.timeOrigin + performance.now() - (nowMs() - tNoticed);
      h.kill(); // the rest of its group at once, if only the host itself was killed (an agent left running would write on)
      this.state.set('dead', `host ${h.pid} died: noticed`);
      this.work = h.done.then(() => this.interrupted(h, tNoticed));
    });
  }

  private async interrupted(h: HostHandle, tNoticed: number): Promise<void> {
    const by: KilledBy = this.buttonKillAt !== null ? this.killedBy : 'person';
    const tKill = this.buttonKillAt ?? tNoticed;
    this.buttonKillAt = null;
    this.host = null;
    const s = this.state;
    const exit = h.exited?.signal ?? `exit code ${String(h.exited?.exitCode)}`;
    s.note(`host ${h.pid} died (${exit}), ${KILLED_BY[by]}`);
    s.counts.interruptions++;
    const cycle = this.nextCycle++;
    const phase: KillPhase = h.inFlightSeq !== null ? 'checkpoint' : 'work';
    const nonce = h.nonce ?? '';
    const lastCommitted = h.lastCommitted;
    this.journal.append({ type: 'cycle-start', cycle, phase });
    const killed = { phase, observedPhase: phase, atStep: h.maxStep, nonce, lastCommitted, inFlightSeq: h.inFlightSeq };
    journalKill(this.journal, cycle, killed);
    s.set('restoring');
    const ctx: InterruptionContext = {
      journal: this.journal,
      store: this.store,
      model: this.model,
      log: this.log,
      runDir: this.paths.dir,
      timeouts: this.timeouts,
      spawnHost: this.spawnHost,
      restoring: (next) => this.follow(next),
      outsideKills: { stopping: () => this.stopping },
    };
    const interrupted = { cycle, phase, observedPhase: phase, killStep: h.maxStep, nonce, lastCommitted, tKill };
    const { event, host } = await interruption(ctx, interrupted);
    const counted = this.effects?.account(this.journal, cycle, host);
    await this.journal.durable(); // the effects event on disk before its rows are marked counted
    counted?.();
    const view = interruptionView(event, by, by === 'person' ? null : tNoticed - tKill);
    s.last = view;
    this.member?.interrupted(event, by, tKill);
    if (event.outcome === 'ok') s.counts.resumed++;
    else s.counts.failed++;
    if (host && !this.stopping) {
      const lost = view.lostSteps ?? 0;
      this.up(
        host,
        'verified',
        `verified: resumed from checkpoint ${view.restoredSeq} at step ${view.restoredStep}, ${lost} steps redone, downtime ${view.downtimeMs?.toFixed(1)} ms`,
      );
      return;
    }
    if (host) await host.stop(this.timeouts.hostMs);
    if (this.stopping) return;
    s.set(
      'failed',
      `interruption ${cycle}: ${event.outcome}${event.cause ? ` (${event.cause.code})` : ''}; booting a new session`,
    );
    await this.boot();
  }
}
