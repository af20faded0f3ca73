// The memory squeezes of a run (issue 36, nemesis/memory-pressure.ts), as summary.json and the report read them: the
// journal's memory-pressure events counted (how many squeezes, in how many the OOM killer fired, the victims and the
// sessions they were of) and the time from the first limit to the OOM kill as p50/p95/max with n.
import type { MemoryPressureEvent } from '../journal/events.js';
import { roundMs } from '../core/round.js';
import { quantileSorted } from '../stats/quantile.js';
import { sortSample } from '../stats/sorted.js';

/** What summary.json says of a run's memory squeezes (absent: none journaled). */
export interface MemoryPressureSummary {
  /** Squeezes journaled. */
  squeezes: number;
  /** Sessions a squeeze took, fewest and most. */
  sessions: { min: number; max: number };
  /** Squeezes in which the OOM killer fired (the others were the harness's: no victim, cycles indeterminate). */
  fired: number;
  /** Processes the kernel picked, and how many times each session was picked ("none": a process of no session). */
  victims: number;
  bySession: Record<string, number>;
  /** The first limit to the OOM kill, over the `n` squeezes in which it fired. */
  killMs: { n: number; p50: number; p95: number; max: number } | null;
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface MemoryPressureFold {
  squeezes: number;
  minSessions: number;
  maxSessions: number;
  victims: number;
  bySession: Record<string, number>;
  killMs: number[];
}

/** Counts memory-pressure events. */
export class MemoryPressureTally {
  private fold: MemoryPressureFold = {
    squeezes: 0,
    minSessions: Infinity,
    maxSessions: 0,
    victims: 0,
    bySession: {},
    killMs: [],
  };

  add(e: MemoryPressureEvent): void {
    const f = this.fold;
    f.squeezes++;
    f.minSessions = Math.min(f.minSessions, e.sessions);
    f.maxSessions = Math.max(f.maxSessions, e.sessions);
    f.victims += e.victims.length;
    for (const v of e.victims) {
      const key = v.session === null ? 'none' : String(v.session);
      f.bySession[key] = (f.bySession[key] ?? 0) + 1;
    }
    if (e.killMs !== null) f.killMs.push(e.killMs);
  }

  partial(): MemoryPressureFold {
    return this.fold;
  }

  append(p: MemoryPressureFold | undefined): void {
    if (p === undefined) return;
    const f = this.fold;
    f.squeezes += p.squeezes;
    f.minSessions = Math.min(f.minSessions, p.minSessions);
    f.maxSessions = Math.max(f.maxSessions, p.maxSessions);
    f.victims += p.victims;
    for (const [k, n] of Object.entries(p.bySession)) f.bySession[k] = (f.bySession[k] ?? 0) + n;
    f.killMs.push(...p.killMs);
  }

  /** The summary section (absent when no squeeze was journaled). */
  summary(): { memoryPressure?: MemoryPressureSummary } {
    const f = this.fold;
    if (f.squeezes === 0) return {};
    const sorted = sortSample(f.killMs);
    const q = (p: number): number => roundMs(quantileSorted(sorted, p));
    return {
      memoryPressure: {
        squeezes: f.squeezes,
        sessions: { min: f.minSessions, max: f.maxSessions },
        fired: sorted.length,
        victims: f.victims,
        bySession: f.bySession,
        killMs: sorted.length === 0 ? null : { n: sorted.length, p50: q(0.5), p95: q(0.95), max: q(1) },
      },
    };
  }
}
