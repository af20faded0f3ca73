// The demo's whole-host kill as its page shows it (soak demo --sessions N): every session's host SIGKILLed in one
// loop, then each session's resume as its interruption journals it; "all N back" is the time from the loop's start to
// the last session's first verified heartbeat (each session's kill time plus its journaled downtime).
import { roundMs } from '../core/round.js';
import type { CycleEvent } from '../journal/events.js';
import type { HostCrashEvent } from '../journal/fault-events.js';
import type { KilledBy } from './state.js';

/** One session's end of a whole-host kill: its verdict and downtime (kill -> first verified heartbeat, ms). */
export interface HostCrashEnd {
  session: number;
  verdict: CycleEvent['outcome'];
  downtimeMs: number | null;
}

/** The latest whole-host kill: which kill of the run it is, who is back, and the time until the last one was. */
export interface HostCrashView {
  /** 1 for the run's first whole-host kill. */
  number: number;
  /** Sessions the kill hit (every session but those down at the kill). */
  sessions: number;
  /** Sessions resumed and verified so far. */
  back: number;
  /** Each session's end, by session index (null: its resume is still under way; 'down': not running at the kill). */
  ends: (HostCrashEnd | 'down' | null)[];
  /** Loop start -> the last session's first verified heartbeat, ms; null until every session is back verified. */
  allBackMs: number | null;
  /** Every session's interruption is journaled (verified or not). */
  done: boolean;
  /** The first to the last session's kill, ms (0 before the first interruption is journaled). */
  spreadMs: number;
}

interface Crash {
  number: number;
  t0: number;
  ends: (HostCrashEnd | 'down' | null)[];
  /** Monotonic time each session was back verified (kill + downtime). */
  backAt: (number | null)[];
  /** Monotonic time of each session's kill, as its interruption journaled it. */
  killedAt: number[];
}

/** The whole-host kills of a grid: begun by the button, ended by each session's journaled interruption. */
export class HostCrashes {
  private crash: Crash | null = null;

  constructor(private readonly sessions: number) {}

  /** True while the latest whole-host kill still waits for a session's resume. */
  pending(): boolean {
    return this.crash !== null && this.crash.ends.some((e) => e === null);
  }

  /** A whole-host kill whose loop started at monotonic `t0`; `down`: sessions not running then (a boot gave up). */
  begin(t0: number, down: readonly number[] = []): void {
    const ends = Array.from({ length: this.sessions }, (_, i) => (down.includes(i) ? ('down' as const) : null));
    const backAt = Array.from({ length: this.sessions }, () => null);
    this.crash = { number: (this.crash?.number ?? 0) + 1, t0, ends, backAt, killedAt: [] };
  }

  /** Session `session`'s interruption was journaled; counts only for a kill of the whole host still awaited. */
  interrupted(session: number, event: CycleEvent, by: KilledBy, tKill: number): HostCrashView | null {
    const c = this.crash;
    if (by !== 'host' || c === null || c.ends[session] !== null) return null;
    c.ends[session] = { session, verdict: event.outcome, downtimeMs: event.downtimeMs };
    const ok = event.outcome === 'ok' && event.downtimeMs !== null;
    c.backAt[session] = ok ? tKill + event.downtimeMs! : null;
    c.killedAt.push(tKill);
    return this.view();
  }

  /** The latest whole-host kill, or null before the first. */
  view(): HostCrashView | null {
    const c = this.crash;
    if (c === null) return null;
    const back = c.backAt.filter((t): t is number => t !== null);
    const killed = c.ends.filter((e) => e !== 'down').length;
    const allBack = back.length === killed && killed > 0;
    return {
      number: c.number,
      sessions: killed,
      back: back.length,
      ends: c.ends.slice(),
      allBackMs: allBack ? Math.max(...back) - c.t0 : null,
      done: c.ends.every((e) => e !== null),
      spreadMs: c.killedAt.length === 0 ? 0 : Math.max(...c.killedAt) - Math.min(...c.killedAt),
    };
  }
}

/**
 * The journal's `host-crash` event of a whole-host kill every session has answered (as a soak's crash-barrier.ts
 * journals its crashes, so the demo's report states them the same way): `cycle` is the kill's number in the demo.
 */
export function hostCrashEvent(v: HostCrashView): Omit<HostCrashEvent, 'schemaVersion' | 't'> {
  return {
    type: 'host-crash',
    cycle: v.number,
    sessions: v.sessions,
    killed: v.ends.filter((e) => e !== null && e !== 'down').length,
    spreadMs: roundMs(v.spreadMs),
    back: v.back,
    lastBackMs: v.allBackMs === null ? null : roundMs(v.allBackMs),
  };
}

/** A time as the live pages show it (shell.ts ms()): "412.0 ms", "1.62 s". */
function shownMs(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** "all 3 back in 412.0 ms" / "2 of 3 back, session 1 not back verified (fail)" / "1 of 3 back so far". */
export function hostCrashText(v: HostCrashView): string {
  const down = v.ends.flatMap((e, i) => (e === 'down' ? [i] : []));
  const tail = down.length === 0 ? '' : ` (not running at the kill: session ${down.join(', ')})`;
  if (v.allBackMs !== null) return `all ${v.sessions} back in ${shownMs(v.allBackMs)}${tail}`;
  const lost = v.ends.filter(
    (e): e is HostCrashEnd => e !== null && e !== 'down' && (e.verdict !== 'ok' || e.downtimeMs === null),
  );
  const head = `${v.back} of ${v.sessions} back`;
  if (!v.done) return `${head} so far${tail}`;
  return `${head}, ${lost.map((e) => `session ${e.session} not back verified (${e.verdict})`).join(', ')}${tail}`;
}
