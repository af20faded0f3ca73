// The checkpoint storms of a run of several sessions (issue 36), as summary.json and the report read them: the
// journal's checkpoint-storm events counted (storm checkpoints committed, torn by the kill, failed), the spread of the
// storm checkpoints' begins across sessions and the storm's duration (p50/max with n), and what a storm costs: the
// storm checkpoints' pause and write times (p50/p95, n) beside the same figures of the run's ordinary checkpoints.
import type { CheckpointStormEvent } from '../journal/events.js';
import { roundMs } from '../core/round.js';
import { quantileSorted } from '../stats/quantile.js';
import { sortSample } from '../stats/sorted.js';

/** p50 and max of a sample, with its n. */
export interface Spread {
  n: number;
  p50: number;
  max: number;
}

/** p50 and p95 of a sample, with its n (null: an empty sample). */
export type Quantiles = { n: number; p50: number; p95: number } | null;

/** Pause and write times of a set of checkpoints. */
export interface CheckpointCost {
  pauseMs: Quantiles;
  writeMs: Quantiles;
}

/** What summary.json says of a run's checkpoint storms (absent: none journaled). */
export interface CheckpointStormSummary {
  /** Storms journaled. */
  storms: number;
  /** Sessions a storm took, fewest and most. */
  sessions: { min: number; max: number };
  /** Storm checkpoints: begun, committed before the kill, torn by it (in flight), failed (none begun, host died). */
  checkpoints: { begun: number; queued: number; committed: number; torn: number; failed: number };
  /** First to last storm checkpoint begin of one storm, over the storms with a begin. */
  spreadMs: Spread | null;
  /** First begin to the last commit or kill of one storm. */
  durationMs: Spread | null;
  /** The committed storm checkpoints' pause and write times. */
  storm: CheckpointCost;
  /** The run's other committed checkpoints' (the ordinary ones, at the cadence). */
  ordinary: CheckpointCost;
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface CheckpointStormFold {
  storms: number;
  minSessions: number;
  maxSessions: number;
  begun: number;
  queued: number;
  committed: number;
  torn: number;
  failed: number;
  spreadMs: number[];
  durationMs: number[];
  pauseMs: number[];
  writeMs: number[];
}

/** The journal's ms are rounded to the microsecond (core/round.ts): a storm's and its checkpoint event's match so. */
const SAME_MS = 0.0006;

/** `all` (sorted) without one value matching each of `drop`'s (a storm checkpoint's own checkpoint event). */
export function without(all: Float64Array, drop: readonly number[]): number[] {
  const out = Array.from(all);
  let i = out.length - 1;
  for (const d of [...drop].sort((a, b) => b - a)) {
    while (i >= 0 && out[i]! > d + SAME_MS) i--;
    if (i >= 0 && Math.abs(out[i]! - d) <= SAME_MS) out.splice(i--, 1);
  }
  return out;
}

function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const s = sortSample(values);
  return { n: s.length, p50: roundMs(quantileSorted(s, 0.5)), max: roundMs(s[s.length - 1]!) };
}

function quantiles(values: ArrayLike<number>): Quantiles {
  if (values.length === 0) return null;
  const s = sortSample(values);
  return { n: s.length, p50: roundMs(quantileSorted(s, 0.5)), p95: roundMs(quantileSorted(s, 0.95)) };
}

/** Counts checkpoint-storm events. */
export class CheckpointStormTally {
  private fold: CheckpointStormFold = {
    storms: 0,
    minSessions: Infinity,
    maxSessions: 0,
    begun: 0,
    queued: 0,
    committed: 0,
    torn: 0,
    failed: 0,
    spreadMs: [],
    durationMs: [],
    pauseMs: [],
    writeMs: [],
  };

  add(e: CheckpointStormEvent): void {
    const f = this.fold;
    f.storms++;
    f.minSessions = Math.min(f.minSessions, e.sessions);
    f.maxSessions = Math.max(f.maxSessions, e.sessions);
    f.begun += e.begun;
    f.queued += e.queued;
    f.committed += e.committed;
    f.torn += e.torn;
    f.failed += e.failed;
    if (e.spreadMs !== null) f.spreadMs.push(e.spreadMs);
    if (e.durationMs !== null) f.durationMs.push(e.durationMs);
    f.pauseMs.push(...e.pauseMs);
    f.writeMs.push(...e.writeMs);
  }

  partial(): CheckpointStormFold {
    return this.fold;
  }

  append(p: CheckpointStormFold | undefined): void {
    if (p === undefined) return;
    const f = this.fold;
    f.storms += p.storms;
    f.minSessions = Math.min(f.minSessions, p.minSessions);
    f.maxSessions = Math.max(f.maxSessions, p.maxSessions);
    for (const k of ['begun', 'queued', 'committed', 'torn', 'failed'] as const) f[k] += p[k];
    for (const k of ['spreadMs', 'durationMs', 'pauseMs', 'writeMs'] as const) f[k].push(...p[k]);
  }

  /** The summary section (absent when no storm was journaled); `all`: every committed checkpoint's pause and write. */
  summary(all: { pauseMs: ArrayLike<number>; writeMs: ArrayLike<number> }): {
    checkpointStorms?: CheckpointStormSummary;
  } {
    const f = this.fold;
    if (f.storms === 0) return {};
    const ordinary = (xs: ArrayLike<number>, storm: number[]): number[] => without(sortSample(xs), storm);
    return {
      checkpointStorms: {
        storms: f.storms,
        sessions: { min: f.minSessions, max: f.maxSessions },
        checkpoints: { begun: f.begun, queued: f.queued, committed: f.committed, torn: f.torn, failed: f.failed },
        spreadMs: spread(f.spreadMs),
        durationMs: spread(f.durationMs),
        storm: { pauseMs: quantiles(f.pauseMs), writeMs: quantiles(f.writeMs) },
        ordinary: {
          pauseMs: quantiles(ordinary(all.pauseMs, f.pauseMs)),
          writeMs: quantiles(ordinary(all.writeMs, f.writeMs)),
        },
      },
    };
  }
}
