// The coding workload at the resumes of a run (targetOptions.workload coding; vm-images/work/work.sh), as summary.json
// and the report read it: how many resumed states carried its account, the iteration each had reached (so a workload
// that never got going shows: iterations 0), in how many its failure count had grown (those cycles failed with
// work-failed), and in how many its last failure was the guest's own disk being full (counted apart: not the
// system's fault, and not a check of the work either). Fed the journal's observation events.
import { OUT_OF_SPACE, workFailuresPast } from '../check/heartbeat.js';
import type { ObservationEvent } from '../journal/events.js';
import { quantileSorted } from '../stats/quantile.js';
import { sortSample } from '../stats/sorted.js';

/** What summary.json says of the coding workload (absent: no resumed state carried its account). */
export interface WorkSummary {
  /** Resumed states that carried the workload's account. */
  resumes: number;
  /** The workload's iteration in those states. */
  iterations: { min: number; p50: number; max: number };
  /** Of them, the states with more failures than the killed host had started with (cycles failed: work-failed). */
  failed: number;
  /** Of them, the states whose last failure was the guest's disk full (`space`: not a failure); absent if none. */
  outOfSpace?: number;
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface WorkFold {
  iterations: number[];
  failed: number;
  outOfSpace: number;
}

/** Counts the coding workload's accounts in observation events. */
export class WorkTally {
  private fold: WorkFold = { iterations: [], failed: 0, outOfSpace: 0 };

  add(e: Pick<ObservationEvent, 'work' | 'workBefore'>): void {
    if (e.work === undefined) return;
    this.fold.iterations.push(e.work.iteration);
    if (workFailuresPast(e.work, e.workBefore) > 0) this.fold.failed++;
    if (e.work.last === OUT_OF_SPACE) this.fold.outOfSpace++;
  }

  partial(): WorkFold {
    return this.fold;
  }

  append(p: WorkFold | undefined): void {
    if (p === undefined) return;
    this.fold.iterations.push(...p.iterations);
    this.fold.failed += p.failed;
    this.fold.outOfSpace += p.outOfSpace;
  }

  /** The summary section (absent when no resumed state carried the workload's account). */
  summary(): { work?: WorkSummary } {
    const sorted = sortSample(this.fold.iterations);
    if (sorted.length === 0) return {};
    const q = (p: number): number => quantileSorted(sorted, p);
    const { failed, outOfSpace } = this.fold;
    const space = outOfSpace > 0 ? { outOfSpace } : {};
    return { work: { resumes: sorted.length, iterations: { min: q(0), p50: q(0.5), max: q(1) }, failed, ...space } };
  }
}
