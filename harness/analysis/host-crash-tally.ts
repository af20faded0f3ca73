// The host crashes of a run of several sessions (issue 36), as summary.json and the report read them: the journal's
// host-crash events counted (how many took every session, killed every one, brought every one back) and the time from
// the crash to the last session back, as p50/p95/max over the crashes that brought every session back, with n.
import type { HostCrashEvent } from '../journal/events.js';
import { roundMs } from '../core/round.js';
import { quantileSorted } from '../stats/quantile.js';
import { sortSample } from '../stats/sorted.js';

/** What summary.json says of a run's host crashes (absent: none journaled). */
export interface HostCrashSummary {
  /** Host crashes journaled. */
  crashes: number;
  /** Sessions a crash took, fewest and most (a session that had ended is in none). */
  sessions: { min: number; max: number };
  /** Crashes whose loop killed every session it took (each host then seen to die). */
  everyKilled: number;
  /** Crashes after which every session it took resumed. */
  everyBack: number;
  /** The largest first-to-last kill spread of one crash's loop, ms. */
  spreadMaxMs: number;
  /** The crash to the last session's first verified heartbeat, over the `n` crashes that brought every session back. */
  lastBackMs: { n: number; p50: number; p95: number; max: number } | null;
  /** Up to 3 crashes that did not kill or bring back every session: what they journaled. */
  incomplete: string[];
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface HostCrashFold {
  crashes: number;
  minSessions: number;
  maxSessions: number;
  everyKilled: number;
  everyBack: number;
  spreadMaxMs: number;
  lastBackMs: number[];
  incomplete: string[];
}

/** Counts host-crash events. */
export class HostCrashTally {
  private fold: HostCrashFold = {
    crashes: 0,
    minSessions: Infinity,
    maxSessions: 0,
    everyKilled: 0,
    everyBack: 0,
    spreadMaxMs: 0,
    lastBackMs: [],
    incomplete: [],
  };

  add(e: HostCrashEvent): void {
    const f = this.fold;
    f.crashes++;
    f.minSessions = Math.min(f.minSessions, e.sessions);
    f.maxSessions = Math.max(f.maxSessions, e.sessions);
    if (e.killed === e.sessions) f.everyKilled++;
    if (e.back === e.sessions) f.everyBack++;
    f.spreadMaxMs = Math.max(f.spreadMaxMs, e.spreadMs);
    if (e.lastBackMs !== null) f.lastBackMs.push(e.lastBackMs);
    if ((e.killed < e.sessions || e.back < e.sessions) && f.incomplete.length < 3)
      f.incomplete.push(`cycle ${e.cycle}: ${e.killed} of ${e.sessions} sessions killed, ${e.back} back`);
  }

  partial(): HostCrashFold {
    return this.fold;
  }

  append(p: HostCrashFold | undefined): void {
    if (p === undefined) return;
    const f = this.fold;
    f.crashes += p.crashes;
    f.minSessions = Math.min(f.minSessions, p.minSessions);
    f.maxSessions = Math.max(f.maxSessions, p.maxSessions);
    f.everyKilled += p.everyKilled;
    f.everyBack += p.everyBack;
    f.spreadMaxMs = Math.max(f.spreadMaxMs, p.spreadMaxMs);
    f.lastBackMs.push(...p.lastBackMs);
    f.incomplete.push(...p.incomplete.slice(0, 3 - f.incomplete.length));
  }

  /** The summary section (absent when no host crash was journaled). */
  summary(): { hostCrashes?: HostCrashSummary } {
    const f = this.fold;
    if (f.crashes === 0) return {};
    const sorted = sortSample(f.lastBackMs);
    const q = (p: number): number => roundMs(quantileSorted(sorted, p));
    return {
      hostCrashes: {
        crashes: f.crashes,
        sessions: { min: f.minSessions, max: f.maxSessions },
        everyKilled: f.everyKilled,
        everyBack: f.everyBack,
        spreadMaxMs: f.spreadMaxMs,
        lastBackMs: sorted.length === 0 ? null : { n: sorted.length, p50: q(0.5), p95: q(0.95), max: q(1) },
        incomplete: f.incomplete,
      },
    };
  }
}
