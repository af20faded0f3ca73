// The e2e tests' one allowance for a loaded machine: a gate on measured time may fail (or, on a machine the run's own
// samples call saturated, be inconclusive (saturated)); no other gate may.
import { expect } from 'vitest';
import type { MachineLoadSummary } from '../../harness/analysis/machine-load.js';
import { isTimeMetric } from '../../harness/gates/metrics.js';
import type { TimingJudgement } from '../../harness/gates/judge.js';
import { runSoak } from './cli.js';

/** One gate as `soak gates --json` prints it (the fields these tests read). */
export interface GateRow {
  id: number;
  name: string;
  metric: string;
  verdict: 'pass' | 'fail' | 'inconclusive' | 'insufficient';
  /** A timing gate judged on a saturated machine: its verdict as measured. */
  saturated?: { measured: string };
}

/** What `soak gates --json` prints, with its exit code. */
export interface GatesJson {
  exitCode: number;
  verdict: 'pass' | 'fail' | 'inconclusive' | 'insufficient';
  runDirs: string[];
  gates: GateRow[];
  timing: TimingJudgement;
}

/** `soak gates <runDirs...> --json [extra]` (extra: e.g. --gates-dir); throws if it prints no JSON. */
export async function gatesJson(runDirs: string[], ...extra: string[]): Promise<GatesJson> {
  const r = await runSoak(['gates', ...runDirs, '--json', ...extra], {
    timeoutMs: 120_000,
    env: { SOAK_STRICT_TIMING: '' },
  });
  try {
    return { ...(JSON.parse(r.stdout) as Omit<GatesJson, 'exitCode'>), exitCode: r.exitCode ?? -1 };
  } catch (err) {
    throw new Error(`soak gates printed no JSON (exit ${r.exitCode}): ${r.stdout}\n${r.stderr}`, { cause: err });
  }
}

/** A gate on measured time (the metrics table's own rule: its unit is a time). */
export const isTimingGate = (g: GateRow): boolean => isTimeMetric(g.metric);

/**
 * The gates that failed as measured, as "#<id> <name>", split into timing gates and every other one (a timing gate's
 * fail on a saturated machine counts: it is reported inconclusive (saturated), but it failed its bar).
 */
export function failedGates(j: GatesJson): { timing: string[]; other: string[] } {
  const failed = j.gates.filter((g) => g.verdict === 'fail' || g.saturated?.measured === 'fail');
  const label = (g: GateRow): string => `#${g.id} ${g.name}`;
  return {
    timing: failed.filter(isTimingGate).map(label),
    other: failed.filter((g) => !isTimingGate(g)).map(label),
  };
}

/**
 * Check a finished `soak run` on `runDir`: its exit code is what `soak gates --json` says of the folder, and no gate
 * failed but a timing gate (so exit 1 only when timing gates alone failed). `said`: the run's output, for messages.
 */
export async function expectOnlyTimingFailures(
  exitCode: number | undefined,
  runDir: string,
  said: string,
): Promise<void> {
  const j = await gatesJson([runDir]);
  expect(failedGates(j).other, said).toEqual([]);
  expect(exitCode, said).toBe(j.exitCode);
}

/** A machine the run's own load samples call saturated (load 9 on 2 cores), for the timing rule's unit tests. */
export const saturatedLoad = {
  load1: { p50: 9, max: 9 },
  stealPct: { p50: 0, max: 0 },
  cores: 2,
  samples: 5,
  saturated: true,
  reason: 'load 9 > 2 cores',
} as unknown as MachineLoadSummary;
