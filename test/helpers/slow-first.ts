// The suite's file order: the slowest files start first, so the two workers finish together instead of one of them
// starting a three-minute file last (a fresh CI clone has no vitest timing cache, and vitest then runs larger files
// first, which puts small slow files such as the torture tests at the end).
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Test files, slowest first, as measured on a 2-core machine with both cores busy (CONTRIBUTING, "Test time"). Only
 * the order matters: a file missing here runs after these, in vitest's own order; a stale entry costs nothing.
 */
export const SLOW_FIRST: readonly string[] = [
  'test/store/torture.test.ts',
  'test/e2e/power-loss.test.ts',
  'test/e2e/resume-shard.test.ts',
  'test/e2e/store-gc-live.test.ts',
  'test/e2e/cli-run.test.ts',
  'test/targets/microvm/target.test.ts',
  'test/conformance/target-check.test.ts',
  'test/store/power-loss-torture.test.ts',
  'test/targets/exec/builtin-adapter.test.ts',
  'test/targets/exec/gvisor.test.ts',
  'test/analysis/parallel.test.ts',
  'test/e2e/standby.test.ts',
  'test/targets/microvm/hot-copy.test.ts',
  'test/e2e/ci-native.test.ts',
  'test/e2e/write-faults.test.ts',
  'test/store/write-faults.test.ts',
  'test/store/chunking/qemu-migration.test.ts',
  'test/e2e/package-install.test.ts',
  'test/deploy/workflow-run.test.ts',
  'test/report/browser.test.ts',
  'test/targets/microvm/stuck-session.test.ts',
  'test/e2e/saturation.test.ts',
  'test/e2e/resume-sessions.test.ts',
  'test/e2e/checkpoint-storm.test.ts',
];

/** Rank of a file in SLOW_FIRST (files not listed rank after every listed one). */
export function slowRank(root: string, moduleId: string): number {
  const i = SLOW_FIRST.indexOf(path.relative(root, moduleId).split(path.sep).join('/'));
  return i === -1 ? SLOW_FIRST.length : i;
}

/** vitest's sequencer with the listed slow files moved to the front (a stable sort keeps vitest's order otherwise). */
export class SlowFirstSequencer extends BaseSequencer {
  /** Sort as vitest does, then by rank in SLOW_FIRST. */
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    return sorted
      .map((spec, i) => ({ spec, i, rank: slowRank(root, spec.moduleId) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((x) => x.spec);
  }
}
