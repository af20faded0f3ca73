// `soak demo --sessions N`: N demo sessions at once on one host, one run folder. Each session is a DemoSession in its
// own folders (sessions/<i>/, their stores sharing one packs folder, laid out as a soak of many sessions lays them:
// run/sessions.ts), seeded per session (scenario/sessions.ts) and journaled with its index (run/session-journal.ts).
// A person kills one session (kill -9 or its card's button) or the whole host (every session's host group SIGKILLed
// in one synchronous loop); each session resumes on its own, and one session's failure stops no other.
import { rmSync } from 'node:fs';
import { nowMs } from '../core/clock.js';
import { visible } from '../core/visible.js';
import type { JournalWriter } from '../journal/writer.js';
import type { RunPaths } from '../run/run-folder.js';
import type { RunLock } from '../run/run-lock.js';
import { sessionJournal } from '../run/session-journal.js';
import { prepareSession, sessionPaths } from '../run/sessions.js';
import { startRunFolder } from '../run/soak.js';
import { sessionScenario } from '../scenario/sessions.js';
import type { Scenario } from '../scenario/scenario.js';
import { HostCrashes, hostCrashEvent, hostCrashText, type HostCrashView } from './host-crash.js';
import { DemoSession, type DemoOptions, type GridMember } from './session.js';
import type { SessionState } from './state.js';

/** The most sessions `soak demo` runs at once (a page of cards a person can still follow). */
export const MAX_DEMO_SESSIONS = 16;

/** One session's card on the page. */
export interface GridCard {
  session: number;
  state: SessionState;
  step: number;
  checkpoint: { seq: number; step: number; ageMs: number } | null;
  /** The exact command that SIGKILLs this session's host group (null: no host running now). */
  command: string | null;
  last: { cycle: number; by: string; verdict: string; downtimeMs: number | null } | null;
  counts: { interruptions: number; resumed: number; failed: number };
}

/** What the grid page shows, pushed several times a second. */
export interface GridSnapshot {
  target: string;
  runDir: string;
  sessions: number;
  cards: GridCard[];
  /** The latest whole-host kill, with its sentence ("all 3 back in 412.0 ms"). */
  hostCrash: (HostCrashView & { text: string }) | null;
  counts: { interruptions: number; resumed: number; failed: number };
}

/** N supervised sessions on one run: start them, kill one or all from the page, stop them (one run-end). */
export class DemoGrid {
  readonly crashes: HostCrashes;
  private readonly sessions: DemoSession[] = [];

  private constructor(
    private readonly scenario: Scenario,
    readonly paths: RunPaths,
    private readonly journal: JournalWriter,
    private readonly lock: RunLock,
    /** Told when every session of a whole-host kill has journaled its interruption. */
    private readonly onHostCrash: (v: HostCrashView) => void,
  ) {
    this.crashes = new HostCrashes(scenario.sessions);
  }

  /** Create the run folder (run-start: manual kills, `sessions: N`) and boot its N sessions at once. */
  static async start(opts: DemoOptions & { onHostCrash?: (v: HostCrashView) => void }): Promise<DemoGrid> {
    const run = await startRunFolder(opts.runsDir, opts.scenario, { manualKills: true }, 'soak demo');
    const grid = new DemoGrid(run.scenario, run.paths, run.journal, run.lock, opts.onHostCrash ?? (() => {}));
    try {
      for (let i = 0; i < run.scenario.sessions; i++) {
        const paths = sessionPaths(run.paths, i);
        prepareSession(run.paths, paths);
        const member = {
          paths,
          journal: sessionJournal(run.journal, i, () => {}),
          interrupted: grid.memberInterrupted(i),
        };
        grid.sessions.push(DemoSession.member(sessionScenario(run.scenario, i), member, opts.logLevel));
      }
    } catch (err) {
      await Promise.all(grid.sessions.map((s) => s.stop()));
      run.journal.close();
      run.lock.release();
      throw err;
    }
    return grid;
  }

  /** Resolves once every session is up (booted) or could not be. */
  async settled(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.settled()));
  }

  /** Session `i`'s DemoSession. */
  session(i: number): DemoSession | undefined {
    return this.sessions[i];
  }

  /** The card's button (POST /kill?session=<i>): a reason (400) when `raw` names no session, else as killNow. */
  killSession(raw: string | null): boolean | string {
    const i = raw !== null && /^\d{1,2}$/.test(raw) ? Number(raw) : -1;
    const s = this.sessions[i];
    if (s === undefined)
      return `session: expected a session index from 0 to ${this.sessions.length - 1}, got ${visible(JSON.stringify(raw?.slice(0, 40) ?? null))}`;
    return s.killNow('button');
  }

  /**
   * The whole-host button: SIGKILL every session's host group in one synchronous loop (each kill is HostHandle.kill,
   * the group and the kill list the host proved), as a machine that died would. False, killing nothing, while a
   * session is on its way up (booting, restoring, or its kill under way) or the last whole-host kill still awaits a
   * resume; a session whose boot gave up (failed, no host) is left out, so it cannot hold the others' button.
   */
  killHost(): boolean {
    const down = this.sessions.flatMap((s, i) => (s.state.state === 'failed' && !s.killable() ? [i] : []));
    const up = this.sessions.filter((_, i) => !down.includes(i));
    if (this.crashes.pending() || up.length === 0 || !up.every((s) => s.killable())) return false;
    this.crashes.begin(nowMs(), down);
    for (const s of up) s.killNow('host');
    return true;
  }

  /** The page's data now. */
  snapshot(): GridSnapshot {
    const cards = this.sessions.map((s, i) => card(s, i));
    const total = (k: keyof GridCard['counts']) => cards.reduce((n, c) => n + c.counts[k], 0);
    const crash = this.crashes.view();
    return {
      target: this.scenario.target,
      runDir: this.paths.dir,
      sessions: this.sessions.length,
      cards,
      hostCrash: crash && { ...crash, text: hostCrashText(crash) },
      counts: { interruptions: total('interruptions'), resumed: total('resumed'), failed: total('failed') },
    };
  }

  /** Stop every session (each waits for its resume in progress), then journal the run's one run-end. */
  async stop(): Promise<GridSnapshot['counts']> {
    await Promise.all(this.sessions.map((s) => s.stop()));
    const { counts } = this.snapshot();
    this.journal.append({ type: 'run-end', status: 'complete', cycles: counts.interruptions });
    this.journal.close();
    rmSync(this.paths.scratch, { recursive: true, force: true }); // the sessions' hosts used their own
    this.lock.release();
    return counts;
  }

  private memberInterrupted(i: number): GridMember['interrupted'] {
    return (event, by, tKill) => {
      const v = this.crashes.interrupted(i, event, by, tKill);
      if (!v?.done) return;
      this.journal.append(hostCrashEvent(v));
      this.onHostCrash(v);
    };
  }
}

/** Session `i`'s card: read off its live state (not its full snapshot: no workspace or /proc reads per push). */
function card(s: DemoSession, i: number): GridCard {
  const st = s.state;
  const cp = st.checkpoint;
  const last = st.last;
  return {
    session: i,
    state: st.shownState(),
    step: st.step,
    checkpoint: cp ? { seq: cp.seq, step: cp.step, ageMs: Math.round(nowMs() - cp.at) } : null,
    command: st.pid === null ? null : `kill -9 -- -${st.pid}`,
    last: last && { cycle: last.cycle, by: last.by, verdict: last.verdict, downtimeMs: last.downtimeMs },
    counts: { ...st.counts },
  };
}
