// Where a report's numbers came from, said where a reader looks first: the run's status with planned vs run cycles
// (the first line), the saturated-machine banner beside the verdict (what it did to the timing gates: judge.ts), the
// machine-load rows and a merged run's source runs. Plain text; each renderer escapes it. Pure.
import { SATURATION_RULE } from '../analysis/machine-load.js';
import type { Summary } from '../analysis/summary.js';
import type { TimingJudgement } from '../gates/judge.js';

const STATUS_WORDS: Record<NonNullable<Summary['runStatus']>['status'], string> = {
  complete: 'complete',
  interrupted: 'interrupted',
  budget: 'stopped by its time budget',
  aborted: 'aborted',
  unknown: 'not ended (no run-end: its runner died or is still running)',
};

/**
 * "Run complete: 80 of 80 planned cycles." / "Run interrupted after 37 of 80 planned cycles." (+ merged sources, the
 * shards no source stands for, and a merge forced over overlapping sources).
 */
export function provenanceLine(s: Summary): string {
  const status = s.runStatus?.status ?? 'complete';
  const ran = s.cycles.total;
  const planned = s.plannedCycles === undefined ? '' : ` of ${s.plannedCycles} planned`;
  const missing = s.missingShards ?? [];
  const head =
    status === 'complete'
      ? `Run ${missing.length > 0 ? 'incomplete' : 'complete'}: ${ran}${planned} cycles`
      : `Run ${STATUS_WORDS[status]} after ${ran}${planned} cycles`;
  const absent = missing.map((m) => `${m.index + 1}/${m.count}`).join(', ');
  const merged = s.sources
    ? `, merged from ${s.sources.length} runs on ${machinesText(s)}` +
      (missing.length > 0
        ? missing.length === 1
          ? `; shard ${absent} missing: no run of it was merged, so its cycles never ran`
          : `; shards ${absent} missing: no run of them was merged, so their cycles never ran`
        : '')
    : '';
  const forced = s.forcedOverlap
    ? ` Merged with --force although its sources overlap (${s.forcedOverlap.join('; ')}): the same cycles may be counted twice, so n may overstate what was tested.`
    : '';
  return `${head}${merged}.${sequentialText(s)}${forced}`;
}

/** A --until-decided run: " Decided at cycle 63: every gate; ..." or that it was not decided within its budget. */
function sequentialText(s: Summary): string {
  const r = s.runStatus;
  if (r?.untilDecided !== true) return '';
  const how =
    " Judged on each gate's anytime-valid decision, valid however often it was looked at and whenever it stopped; the fixed-n verdicts beside them assume a length fixed in advance.";
  return r.decided
    ? ` Run until decided: decided at cycle ${r.decided.cycle}: ${r.decided.by}.${how}`
    : ` Run until decided: not decided within its budget, so every undecided gate is inconclusive.${how}`;
}

/** "one machine" or "3 machines": how many distinct machines a run's cycles ran on. */
export function machinesText(s: Summary): string {
  const n = s.sources ? new Set(s.sources.map((x) => x.machine)).size : 1;
  return n === 1 ? 'one machine' : `${n} machines`;
}

/**
 * The banner of a run measured on a saturated machine (null when it was not, or load was not sampled): the judgement's
 * warning (load, steal, cores, what became of the timing gates) and the other processes' share of the CPU.
 */
export function saturationBanner(s: Summary, timing: TimingJudgement): string | null {
  const m = s.machineLoad;
  if (!m?.saturated || timing.warning === null) return null;
  return `${timing.warning} Other processes took ${m.otherCpuPct.p50}% of all CPU time (median).`;
}

/** Environment rows for the machine load (empty when the run journaled no samples). */
export function machineLoadRows(s: Summary): Array<[string, string]> {
  const m = s.machineLoad;
  if (!m) return [];
  return [
    ['Load average (1 min)', `p50 ${m.load1.p50}, max ${m.load1.max} on ${m.cores} cores (${m.samples} samples)`],
    ['CPU steal', `p50 ${m.stealPct.p50}%, max ${m.stealPct.max}% of all CPU time`],
    [
      'Other processes\u2019 CPU',
      `p50 ${m.otherCpuPct.p50}%, max ${m.otherCpuPct.max}% of all CPU time (busy minus the harness\u2019s own process tree)`,
    ],
    ['Saturated', m.saturated ? `yes: ${m.reason ?? ''} (${SATURATION_RULE})` : `no (${SATURATION_RULE})`],
  ];
}

/** The source-runs table of a merged run: header and one row per source (empty for a single run). */
export function sourceRows(s: Summary): { header: string[]; rows: string[][] } {
  const header = ['Run', 'Machine', 'Seed', 'Shard', 'Cycles', 'Planned', 'Status'];
  const rows = (s.sources ?? []).map((x) => [
    x.runId,
    x.machine,
    String(x.seed),
    x.shard ? `${x.shard.index + 1}/${x.shard.count}` : '-',
    x.firstCycle === null ? '0' : `${x.cycles} (ids ${x.firstCycle}-${x.lastCycle})`,
    String(x.plannedCycles),
    x.status,
  ]);
  return { header, rows };
}
