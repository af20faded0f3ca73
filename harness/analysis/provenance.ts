// Where an analysed run came from (folder, run id, scenario, seed, size, harness, machine), and the warnings an A/B
// comparison owes its reader when its two sides are the same run or were not measured alike. Pure.
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
  };
}

/** The fields compared, in the order warnings name them, with the word used for each. */
const COMPARED: ReadonlyArray<[keyof RunProvenance, string]> = [
  ['scenario', 'scenario'],
  ['target', 'target'],
  ['seed', 'seed'],
  ['cycles', 'cycle count'],
  ['harnessVersion', 'harness version'],
  ['machine', 'machine'],
];

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
  return warnings;
}
