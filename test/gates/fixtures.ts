// A healthy process-target summary (100 cycles, 20 torn-write kills) and helpers to break one field at a time.
import type { Distribution, Summary } from '../../harness/analysis/summary.js';

function dist(n: number, p50: number, p95: number): Distribution {
  return { n, min: p50 / 2, p50, p90: (p50 + p95) / 2, p95, p99: p95 * 1.1, max: p95 * 1.2, mean: p50 * 1.05 };
}

/** `n` raw samples evenly spread over [lo, hi] (ms), for the intervals of distribution gates. */
export function spread(n: number, lo: number, hi: number): number[] {
  return Array.from({ length: n }, (_, i) => lo + ((hi - lo) * i) / Math.max(1, n - 1));
}

/** Raw samples to go with healthySummary(): every interval well inside its gate's bar. */
export function healthySamples(): Record<string, number[]> {
  return { bootMs: spread(100, 300, 420), checkpointPauseMs: spread(350, 2, 13), downtimeMs: spread(100, 100, 300) };
}

/** A summary every shipped gate passes (given evidence that no cycle lost work beyond its checkpoint). */
export function healthySummary(): Summary {
  return {
    schemaVersion: 1,
    runId: 'test-run',
    scenario: 'process-soak',
    target: 'process',
    date: '2025-01-01',
    startedAt: '2025-01-01T00:00:00.000Z',
    seed: 1,
    cycles: { total: 100, resumed: 100, failed: 0, indeterminate: 0 },
    killResume: { successes: 100, trials: 100, wilson95: [0.963, 1] },
    downtimeMs: dist(100, 180, 290),
    bootMs: dist(100, 400, 400),
    checkpointPauseMs: dist(350, 4, 12),
    checkpointWriteMs: dist(350, 8, 20),
    restoreMs: dist(100, 60, 110),
    lostSteps: { n: 100, max: 19, mean: 9.5 },
    tornCheckpoint: { trials: 20, previousRestored: 20 },
    noncePreserved: { trials: 100, preserved: 100 },
    dedup: { checkpoints: 350, logicalBytes: 350_000_000, storedBytes: 20_000_000, ratio: 17.5 },
    violations: 0,
    violationSamples: [],
    environment: {
      os: 'Linux',
      arch: 'x64',
      cpuModel: 'test',
      cores: 2,
      memoryGiB: 4,
      kernel: 'test',
      node: 'v20',
      harnessVersion: '0.1.0',
      gitCommit: 'unknown',
      target: {},
    },
  };
}
