// A planted run for provenance tests: interrupted after 37 of 80 planned cycles, merged from two shards on two
// machines, measured at load 5.5 on 2 cores (saturated by the load rule).
import { summarizeMachineLoad } from '../../harness/analysis/machine-load.js';
import type { RunAnalysis } from '../../harness/analysis/summary.js';
import type { SourceRun } from '../../harness/journal/events.js';
import { makeAnalysis } from './fixtures.js';

/** The two planted source shards. */
export const PLANTED_SOURCES: SourceRun[] = [
  {
    runId: 'night-s3-shard0of2',
    machine: 'AMD EPYC, 2 cores, kernel 6.1.0-40-cloud-amd64 (#1a2b3c4d)',
    seed: 3,
    shard: { index: 0, count: 2 },
    plannedCycles: 40,
    cycles: 19,
    firstCycle: 1,
    lastCycle: 37,
    status: 'interrupted',
  },
  {
    runId: 'night-s3-shard1of2',
    machine: 'Intel Xeon, 8 cores, kernel 6.12.0 (#9f8e7d6c)',
    seed: 3,
    shard: { index: 1, count: 2 },
    plannedCycles: 40,
    cycles: 18,
    firstCycle: 2,
    lastCycle: 36,
    status: 'complete',
  },
];

/** A 37-cycle merged analysis of PLANTED_SOURCES with saturated load samples (5.5 on 2 cores, steal 1%). */
export function plantedSaturatedMerge(): RunAnalysis {
  const a = makeAnalysis({ cycles: 37, seed: 4, scenario: 'saturated-merge' });
  const machineLoad = summarizeMachineLoad(
    { load1: [5.2, 5.5, 6.1], stealPct: [0.5, 1, 2], otherCpuPct: [60, 70.5, 80] },
    a.summary.environment.cores,
  );
  return {
    ...a,
    summary: {
      ...a.summary,
      plannedCycles: 80,
      runStatus: { status: 'interrupted' },
      sources: PLANTED_SOURCES,
      ...(machineLoad ? { machineLoad } : {}),
    },
  };
}
