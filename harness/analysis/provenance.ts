// Where an analysed run came from (folder, run id, scenario, seed, size, harness, machine, kernel, load), the warnings
// an A/B comparison owes its reader when its two sides are the same run or were not measured alike, and both
// environments side by side. Pure.
import { kernelRelease } from '../core/environment.js';
import type { Summary } from './summary.js';

/** The facts of one run a comparison should hold equal. */
export interface RunProvenance {
  /** The run folder with every symlink resolved. */
  dir: string;
  runId: string;
  scenario: string;
  target: string;
  seed: number;
  cycles: number;
  harnessVersion: string;
  /** CPU model and core count of the machine that ran it. */
  machine: string;
  /** Kernel release. */
  kernel: string;
  cores: number;
  /** Median 1-minute load average and whether the machine was saturated (null: load not sampled). */
  load: { p50: number; saturated: boolean } | null;
}

/** A run's provenance from its summary and its folder's real path. */
export function runProvenance(summary: Summary, realDir: string): RunProvenance {
  const env = summary.environment;
  return {
    dir: realDir,
    runId: summary.runId,
    scenario: summary.scenario,
    target: summary.target,
    seed: summary.seed,
    cycles: summary.cycles.total,
    harnessVersion: env.harnessVersion,
    machine: `${env.cpuModel}, ${env.cores} cores`,
    kernel: kernelRelease(env),
    cores: env.cores,
    load: summary.machineLoad ? { p50: summary.machineLoad.load1.p50, saturated: summary.machineLoad.saturated } : null,
  };
}

/** The fields compared, in the order warnings name them, with the word used for each. */
const COMPARED: ReadonlyArray<[Exclude<keyof RunProvenance, 'load'>, string]> = [
  ['scenario', 'scenario'],
  ['target', 'target'],
  ['seed', 'seed'],
  ['cycles', 'cycle count'],
  ['harnessVersion', 'harness version'],
  ['machine', 'machine'],
  ['kernel', 'kernel'],
];

/** Why two runs' machine load makes their latencies hard to compare (null when it does not, or either was not sampled). */
function loadWarning(a: RunProvenance, b: RunProvenance): string | null {
  if (a.load === null || b.load === null) return null;
  const word = (x: RunProvenance): string =>
    `load p50 ${x.load!.p50} on ${x.cores} cores${x.load!.saturated ? ', saturated' : ''}`;
  const perCore = Math.abs(a.load.p50 / a.cores - b.load.p50 / b.cores);
  if (a.load.saturated !== b.load.saturated || perCore > 1)
    return `A and B differ in machine load: ${word(a)} vs ${word(b)} (latency differences may be the machine's, not the system's)`;
  return null;
}

/**
 * Warnings for comparing baseline `a` with candidate `b` (empty when they are distinct runs measured alike): one when
 * both sides are the same run (same folder or run id: the comparison cannot find a change), one per fact that differs.
 */
export function comparisonWarnings(a: RunProvenance, b: RunProvenance): string[] {
  const warnings: string[] = [];
  if (a.dir === b.dir)
    warnings.push(
      `both sides are the same run (${a.runId}, folder ${a.dir}): comparing a run with itself finds no change`,
    );
  else if (a.runId === b.runId)
    warnings.push(
      `both sides are the same run (run id ${a.runId}, in ${a.dir} and ${b.dir}): comparing a run with itself finds no change`,
    );
  for (const [field, word] of COMPARED)
    if (a[field] !== b[field])
      warnings.push(`A and B differ in ${word}: ${String(a[field])} vs ${String(b[field])} (not measured alike)`);
  const load = loadWarning(a, b);
  if (load !== null) warnings.push(load);
  return warnings;
}

/** Both runs' environments side by side: [label, A, B] rows (compare prints them before its results). */
export function environmentsSideBySide(a: Summary, b: Summary): Array<[string, string, string]> {
  const load = (s: Summary): string =>
    s.machineLoad
      ? `p50 ${s.machineLoad.load1.p50} (max ${s.machineLoad.load1.max})${s.machineLoad.saturated ? ' SATURATED' : ''}`
      : 'not sampled';
  const steal = (s: Summary): string => (s.machineLoad ? `p50 ${s.machineLoad.stealPct.p50}%` : 'not sampled');
  const other = (s: Summary): string => (s.machineLoad ? `p50 ${s.machineLoad.otherCpuPct.p50}%` : 'not sampled');
  const cycles = (s: Summary): string =>
    `${s.cycles.total}${s.plannedCycles === undefined ? '' : ` of ${s.plannedCycles}`} (${s.runStatus?.status ?? 'complete'})`;
  const rows: Array<[string, (s: Summary) => string]> = [
    ['run', (s) => s.runId],
    ['date', (s) => s.startedAt],
    ['scenario', (s) => `${s.scenario} (${s.target})`],
    ['seed', (s) => String(s.seed)],
    ['cycles', cycles],
    ['harness', (s) => s.environment.harnessVersion],
    ['CPU', (s) => s.environment.cpuModel],
    ['cores', (s) => String(s.environment.cores)],
    ['kernel', (s) => kernelRelease(s.environment)],
    ['load average', load],
    ['CPU steal', steal],
    ['other CPU', other],
  ];
  return rows.map(([label, f]) => [label, f(a), f(b)]);
}
