// The machine load under a run's numbers: its machine-load samples folded and summarised, and the one rule that calls
// a run "measured on a saturated machine" (every output then warns, and gates/verdict.ts does not trust a failing
// timing gate measured on it). Pure.
import type { MachineLoadEvent } from '../journal/events.js';
import { summarize } from '../stats/distribution.js';

/** Above this median CPU steal (% of all CPU time) a machine counts as saturated, whatever its load average. */
export const SATURATED_STEAL_PCT = 10;

/** The saturation rule as reports state it. */
export const SATURATION_RULE = `saturated: median 1-minute load average above the core count, or median CPU steal above ${SATURATED_STEAL_PCT}%`;

/** Median and max of one load figure. */
export interface LoadFigure {
  p50: number;
  max: number;
}

/** summary.json's machineLoad: the samples' medians and maxima, and whether the machine was saturated (and why). */
export interface MachineLoadSummary {
  samples: number;
  /** Cores the rule compared the load average with. */
  cores: number;
  load1: LoadFigure;
  stealPct: LoadFigure;
  /** CPU share of every process outside the harness, % of all CPU time (core/machine-load.ts defines it). */
  otherCpuPct: LoadFigure;
  saturated: boolean;
  /** Why it counts as saturated, with the figures ("load p50 5.5 > 2 cores"), or null when it does not. */
  reason: string | null;
}

/** Load samples as folded from a journal (plain arrays: a sample every few seconds). */
export interface LoadColumns {
  load1: number[];
  stealPct: number[];
  otherCpuPct: number[];
}

/** Collects machine-load events; a part folded on another thread is appended with append(). */
export class LoadSamples {
  private readonly cols: LoadColumns = { load1: [], stealPct: [], otherCpuPct: [] };

  add(e: Pick<MachineLoadEvent, 'load1' | 'stealPct' | 'otherCpuPct'>): void {
    this.cols.load1.push(e.load1);
    this.cols.stealPct.push(e.stealPct);
    this.cols.otherCpuPct.push(e.otherCpuPct);
  }

  append(p: LoadColumns): void {
    for (let i = 0; i < p.load1.length; i++)
      this.add({ load1: p.load1[i]!, stealPct: p.stealPct[i]!, otherCpuPct: p.otherCpuPct[i]! });
  }

  columns(): LoadColumns {
    return this.cols;
  }
}

function figure(values: readonly number[]): LoadFigure {
  const d = summarize(values);
  return { p50: Math.round(d.p50! * 100) / 100, max: d.max! };
}

/** The saturation verdict on medians (the one home of the rule): the reason, or null when not saturated. */
export function saturationReason(load1P50: number, stealP50: number, cores: number): string | null {
  const reasons: string[] = [];
  if (load1P50 > cores) reasons.push(`load p50 ${load1P50} > ${cores} cores`);
  if (stealP50 > SATURATED_STEAL_PCT) reasons.push(`CPU steal p50 ${stealP50}% > ${SATURATED_STEAL_PCT}%`);
  return reasons.length > 0 ? reasons.join(', ') : null;
}

/** Summarise the samples on a machine of `cores` cores; undefined when the run journaled none (older runs). */
export function summarizeMachineLoad(cols: LoadColumns, cores: number): MachineLoadSummary | undefined {
  if (cols.load1.length === 0) return undefined;
  const load1 = figure(cols.load1);
  const stealPct = figure(cols.stealPct);
  const reason = saturationReason(load1.p50, stealPct.p50, cores);
  return {
    samples: cols.load1.length,
    cores,
    load1,
    stealPct,
    otherCpuPct: figure(cols.otherCpuPct),
    saturated: reason !== null,
    reason,
  };
}

/**
 * The saturated machine in one clause with its figures, as every output words it: "saturated machine: load average
 * p50 5.5 (max 6.1) on 2 cores, CPU steal p50 0.3% (max 1%), 3 samples; load p50 5.5 > 2 cores". Null when the
 * machine was not saturated (or load was not sampled).
 */
export function saturationText(m: MachineLoadSummary | undefined): string | null {
  if (!m?.saturated) return null;
  return (
    `saturated machine: load average p50 ${m.load1.p50} (max ${m.load1.max}) on ${m.cores} cores, ` +
    `CPU steal p50 ${m.stealPct.p50}% (max ${m.stealPct.max}%), ${m.samples} samples; ${m.reason ?? ''}`
  );
}
