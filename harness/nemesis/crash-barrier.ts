// Where a run's sessions meet at a host crash (scenario sessions > 1, issue 36): each session's cycle loop brings its
// host to the crash of its cycle; once every session still running has come (or ended that cycle without a host), and
// every host has been seen working past its newest checkpoint (a heartbeat, not a sleep), one synchronous loop SIGKILLs
// them all: the machine died. A wait that runs out makes the crash the harness's failure (cause crash-barrier), never
// the runtime's. Each session then resumes on its own path; once all have an outcome the crash is journaled with its
// spread and the time from the crash to the last session back. A session whose loop ended leaves: nobody waits for it.
// A checkpoint storm meets here the same way; its loop asks every host for a checkpoint instead (checkpoint-storm.ts,
// which journals it from what each session reports).
// Another fault kind that meets every session at one instant registers its own act (actOn: the memory squeeze of
// memory-pressure.ts), which the one meeting runs in place of the SIGKILL loop and which says each session's turn.
import { nowMs } from '../core/clock.js';
import { roundMs } from '../core/round.js';
import type { CycleEvent, IndeterminateCause } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { FaultKind, Scenario } from '../scenario/scenario.js';
import { hostTimeouts } from '../scenario/timeouts.js';
import type { HostHandle } from '../session/host-handle.js';
import type { HostMessage } from '../session/protocol.js';
import { acknowledged, type CrashMember, type CrashTurn } from './fault.js';
import { planCycle, planFaultEntry, stormKill } from './plan.js';

/** TEST-ONLY: SOAK_TEST_HOST_CRASH_SPARES_SESSION=<i>: the crash loop leaves session i's host running (its control). */
export const HOST_CRASH_SPARES_SESSION = 'SOAK_TEST_HOST_CRASH_SPARES_SESSION';

/** A meeting's act other than the host crash's loop: run once every session is in, each seated session's turn. */
export type MeetingAct = (
  cycle: number,
  hosts: ReadonlyMap<number, HostHandle>,
) => Promise<ReadonlyMap<number, CrashTurn>>;

interface Seat {
  host: HostHandle;
  atPoint: () => void;
  /** What the loop does to this host (default: SIGKILL), returning when. */
  act?: (host: HostHandle) => number;
  report?: unknown;
  resolve: (t: CrashTurn) => void;
  tKill?: number;
  died?: boolean;
  event?: CycleEvent | null;
}

interface Crash {
  state: 'gathering' | 'waiting' | 'fired' | 'failed';
  seats: Map<number, Seat>;
  cause?: IndeterminateCause;
  timer?: NodeJS.Timeout;
  tCrash?: number;
  /** A storm's sessions' reports are whole: called once with them in session order (member.report). */
  whole?: (reports: unknown[], journal: JournalWriter) => void;
}

/** The run's host crashes: one per cycle the run's seed plans as one, met by every session. */
export class CrashBarrier {
  private readonly crashes = new Map<number, Crash>();
  private readonly acts = new Map<FaultKind, MeetingAct>();
  private readonly left: boolean[];
  private readonly lastEnded: number[];
  /** How long a crash waits without any session making progress, and for the heartbeats past checkpoints. */
  private readonly gatherMs: number;
  private readonly heartbeatMs: number;

  constructor(
    private readonly scenario: Scenario,
    private readonly journal: JournalWriter,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.left = Array.from({ length: scenario.sessions }, () => false);
    this.lastEnded = Array.from({ length: scenario.sessions }, () => 0);
    const t = hostTimeouts(scenario);
    const k = scenario.kill;
    // the longest one cycle's bounded waits add up to: a session that lags by a cycle still arrives within it
    this.gatherMs = k.workDelayMs[1] + k.checkpointDelayMs[1] + k.restoreDelayMs[1] + 2 * t.resumeMs + 3 * t.hostMs;
    this.heartbeatMs = t.hostMs;
  }

  /** At the meetings of cycles planned `kind`, run `act` in place of the SIGKILL loop (no host-crash is journaled). */
  actOn(kind: FaultKind, act: MeetingAct): void {
    this.acts.set(kind, act);
  }

  /** Session `session`'s part. */
  member(session: number): CrashMember {
    return {
      session,
      plan: (cycle, own) => {
        const mine = planCycle(own, cycle);
        const fault = planFaultEntry(this.scenario, cycle);
        // a crash lands where the barrier says (every session working past its checkpoint): a kill in work
        if (fault.kind === 'host-crash') return { kill: { phase: 'work', workDelayMs: 0, phaseDelayMs: 0 }, fault };
        // a storm's kill lands in the storm checkpoint's write: its own delay after that checkpoint's begin
        if (fault.kind === 'checkpoint-storm') return { kill: stormKill(own, cycle), fault };
        return { kill: mine.kill, fault };
      },
      meet: (cycle, host, atPoint, act) => this.meet(session, cycle, host, atPoint, act),
      report: (cycle, value, whole) => {
        const c = this.crashes.get(cycle);
        const seat = c?.seats.get(session);
        if (!c || !seat || c.state !== 'fired') return;
        seat.report = value;
        c.whole = whole;
        this.maybeJournal(cycle);
      },
      died: (cycle, died) => {
        const seat = this.crashes.get(cycle)?.seats.get(session);
        if (seat) seat.died = died;
      },
      settled: (cycle, event) => {
        const seat = this.crashes.get(cycle)?.seats.get(session);
        if (seat && seat.tKill !== undefined && seat.event === undefined) {
          seat.event = event;
          this.maybeJournal(cycle);
        }
      },
      ended: (cycle) => {
        this.lastEnded[session] = Math.max(this.lastEnded[session]!, cycle);
        this.progress();
      },
      leave: () => {
        this.left[session] = true;
        for (const [cycle, c] of this.crashes) {
          const seat = c.seats.get(session);
          if (c.state === 'fired' && seat && seat.event === undefined) seat.event = null;
          this.maybeJournal(cycle);
        }
        this.progress();
      },
    };
  }

  private crash(cycle: number): Crash {
    let c = this.crashes.get(cycle);
    if (!c) this.crashes.set(cycle, (c = { state: 'gathering', seats: new Map() }));
    return c;
  }

  private meet(
    session: number,
    cycle: number,
    host: HostHandle,
    atPoint: () => void,
    act?: (host: HostHandle) => number,
  ): Promise<CrashTurn> {
    const c = this.crash(cycle);
    if (c.state === 'failed') return Promise.resolve({ kind: 'gave-up', cause: c.cause! });
    if (c.state !== 'gathering')
      throw new Error(`cycle ${cycle}: session ${session} came to a crash already under way`);
    return new Promise((resolve) => {
      c.seats.set(session, { host, atPoint, resolve, ...(act ? { act } : {}) });
      this.progress();
    });
  }

  /** A session moved: every gathering crash whose sessions are all in (or past it) starts waiting for heartbeats. */
  private progress(): void {
    for (const [cycle, c] of this.crashes) {
      if (c.state !== 'gathering') continue;
      clearTimeout(c.timer);
      const missing = this.left.flatMap((gone, s) =>
        gone || c.seats.has(s) || this.lastEnded[s]! >= cycle ? [] : [s],
      );
      if (missing.length > 0) {
        const why = `host crash at cycle ${cycle}: session ${missing.join(', ')} did not reach it`;
        c.timer = setTimeout(() => this.fail(cycle, `${why} within ${this.gatherMs} ms of no progress`), this.gatherMs);
      } else if (c.seats.size > 0) this.awaitHeartbeats(cycle, c);
    }
  }

  /** Every seated host seen working past its newest checkpoint (or gone), then the loop; bounded. */
  private awaitHeartbeats(cycle: number, c: Crash): void {
    c.state = 'waiting';
    const pending = new Map<number, () => void>();
    const ready = (s: number): void => {
      pending.get(s)?.();
      pending.delete(s);
      if (pending.size === 0 && c.state === 'waiting') {
        clearTimeout(c.timer);
        this.fire(cycle, c);
      }
    };
    for (const [s, seat] of c.seats) {
      const { host } = seat;
      const onMsg = (m: HostMessage): void => {
        if (m.ev === 'hb' && m.step > (acknowledged(host)?.step ?? -1)) ready(s);
      };
      const onExit = (): void => ready(s);
      host.on('msg', onMsg);
      host.on('exit', onExit);
      pending.set(s, () => void (host.off('msg', onMsg), host.off('exit', onExit)));
    }
    c.timer = setTimeout(() => {
      const late = [...pending.keys()].join(', ');
      for (const off of pending.values()) off();
      this.fail(
        cycle,
        `host crash at cycle ${cycle}: session ${late} showed no step past its checkpoint within ${this.heartbeatMs} ms`,
      );
    }, this.heartbeatMs);
    for (const [s, seat] of c.seats) if (seat.host.exited) ready(s);
  }

  /** The machine dies: every seated session's fault journaled, then every host SIGKILLed in one loop. */
  private fire(cycle: number, c: Crash): void {
    c.state = 'fired';
    const seats = [...c.seats.entries()].sort(([a], [b]) => a - b);
    for (const [, seat] of seats) seat.atPoint();
    const act = this.acts.get(planFaultEntry(this.scenario, cycle).kind);
    if (act) return void this.actTogether(cycle, seats, act);
    const spared = this.env[HOST_CRASH_SPARES_SESSION];
    c.tCrash = nowMs();
    for (const [s, seat] of seats)
      seat.tKill = seat.act ? seat.act(seat.host) : String(s) === spared ? nowMs() : seat.host.kill();
    for (const [, seat] of seats) seat.resolve({ kind: 'crashed', tKill: seat.tKill! });
  }

  /** A registered act at the meeting: each session's turn as it says (none said: the harness's failure). */
  private async actTogether(cycle: number, seats: [number, Seat][], act: MeetingAct): Promise<void> {
    this.crashes.delete(cycle); // no host-crash to journal: the act journals its own
    let turns: ReadonlyMap<number, CrashTurn> = new Map();
    let why = 'the act gave no turn';
    try {
      turns = await act(cycle, new Map(seats.map(([s, seat]) => [s, seat.host])));
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    }
    const cause: IndeterminateCause = { code: 'crash-barrier', message: `cycle ${cycle}: ${why}` };
    for (const [s, seat] of seats) seat.resolve(turns.get(s) ?? { kind: 'gave-up', cause });
  }

  private fail(cycle: number, message: string): void {
    const c = this.crash(cycle);
    if (c.state !== 'gathering' && c.state !== 'waiting') return;
    c.state = 'failed';
    c.cause = { code: 'crash-barrier', message };
    for (const seat of c.seats.values()) seat.resolve({ kind: 'gave-up', cause: c.cause });
  }

  /** Journal a fired crash once every session it took has its outcome (or has left). */
  private maybeJournal(cycle: number): void {
    const c = this.crashes.get(cycle);
    if (!c || c.state !== 'fired') return;
    const seats = [...c.seats.values()];
    if (seats.some((s) => s.act !== undefined)) return this.maybeWhole(cycle, c);
    if (seats.some((s) => s.event === undefined)) return;
    this.crashes.delete(cycle);
    const kills = seats.map((s) => s.tKill!);
    const backAt = seats.map((s) => (s.event?.downtimeMs != null ? s.tKill! + s.event.downtimeMs : null));
    const back = backAt.filter((t): t is number => t !== null);
    this.journal.append({
      type: 'host-crash',
      cycle,
      sessions: seats.length,
      killed: seats.filter((s) => s.died === true).length,
      spreadMs: roundMs(Math.max(...kills) - Math.min(...kills)),
      back: back.length,
      lastBackMs: back.length === seats.length ? roundMs(Math.max(...back) - c.tCrash!) : null,
    });
  }

  /** A fired storm: once every seated session has reported, its `whole` journals it (once). */
  private maybeWhole(cycle: number, c: Crash): void {
    const seats = [...c.seats.entries()].sort(([a], [b]) => a - b);
    if (c.whole === undefined || seats.some(([, s]) => s.report === undefined)) return;
    this.crashes.delete(cycle);
    c.whole(
      seats.map(([, s]) => s.report),
      this.journal,
    );
  }
}
