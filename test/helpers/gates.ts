// The e2e tests' one allowance for a loaded machine: a gate on measured time may fail; no other gate may.
import { expect } from 'vitest';
import { runSoak } from './cli.js';

/** Metrics measured in wall-clock ms (boot, checkpoint pause, resume latency): what machine load can push over a bar. */
export const TIMING_METRICS: readonly string[] = ['bootMs', 'checkpointPauseMs', 'downtimeMs'];

/** One gate as `soak gates --json` prints it (the fields these tests read). */
export interface GateRow {
  id: number;
  name: string;
  metric: string;
  verdict: 'pass' | 'fail' | 'insufficient';
}

/** What `soak gates --json` prints, with its exit code. */
export interface GatesJson {
  exitCode: number;
  verdict: 'pass' | 'fail' | 'insufficient';
  runDirs: string[];
  gates: GateRow[];
}

/** `soak gates <runDirs...> --json [extra]` (extra: e.g. --gates-dir); throws if it prints no JSON. */
export async function gatesJson(runDirs: string[], ...extra: string[]): Promise<GatesJson> {
  const r = await runSoak(['gates', ...runDirs, '--json', ...extra], { timeoutMs: 120_000 });
  try {
    return { ...(JSON.parse(r.stdout) as Omit<GatesJson, 'exitCode'>), exitCode: r.exitCode ?? -1 };
  } catch (err) {
    throw new Error(`soak gates printed no JSON (exit ${r.exitCode}): ${r.stdout}\n${r.stderr}`, { cause: err });
  }
}

/** A gate on measured time. */
export const isTimingGate = (g: GateRow): boolean => TIMING_METRICS.includes(g.metric);

/** The failed gates, as "#<id> <name>", split into timing gates and every other one. */
export function failedGates(j: GatesJson): { timing: string[]; other: string[] } {
  const failed = j.gates.filter((g) => g.verdict === 'fail');
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
