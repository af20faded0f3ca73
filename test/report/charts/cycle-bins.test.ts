import { describe, expect, test } from 'vitest';
import { cycleTable } from '../../../harness/analysis/tables.js';
import type { KillPhase, Outcome } from '../../../harness/journal/events.js';
import { binnedDowntimeSpec } from '../../../harness/report/charts/binned-cycle-chart.js';
import { binCycles, cyclesPerBin } from '../../../harness/report/charts/cycle-bins.js';
import { renderSvg } from '../../../harness/report/charts/render.js';
import type { CycleRow } from '../../../harness/analysis/summary.js';

/** A cycle row with only the fields binning reads set meaningfully. */
function row(
  cycle: number,
  downtimeMs: number | null,
  outcome: Outcome = 'ok',
  observedPhase: KillPhase = 'work',
): CycleRow {
  return {
    cycle,
    phase: observedPhase,
    observedPhase,
    outcome,
    downtimeMs,
    killStep: 0,
    restoredSeq: null,
    restoredStep: null,
    lostSteps: null,
    restoreKills: 0,
    violations: '',
  };
}

describe('cyclesPerBin', () => {
  test('the smallest 1, 2 or 5 x 10^k that keeps the bins at or under the limit', () => {
    expect(cyclesPerBin(1, 1000)).toBe(1);
    expect(cyclesPerBin(1000, 1000)).toBe(1);
    expect(cyclesPerBin(2001, 1000)).toBe(5); // ceil(2001 / 1000) = 3 -> 5: 401 bins
    expect(cyclesPerBin(100_000, 1000)).toBe(100);
    expect(cyclesPerBin(150_000, 1000)).toBe(200); // 150 -> 200: 750 bins
    expect(cyclesPerBin(200_000, 1000)).toBe(200);
    expect(cyclesPerBin(1_000_000, 1000)).toBe(1000);
    expect(cyclesPerBin(10, 3)).toBe(5);
  });
});

describe('binCycles', () => {
  // Bin 1 (cycles 1-5): a 5000 ms spike whose kill landed in a restore. Bin 2 (6-10): one failure that never resumed, one that did.
  const table = cycleTable([
    row(1, 100),
    row(2, 200),
    row(3, 300),
    row(4, 400),
    row(5, 5000, 'ok', 'restore'),
    row(6, 150),
    row(7, null, 'fail'),
    row(8, 250, 'fail', 'checkpoint'),
    row(9, 350),
    row(10, 450),
  ]);

  test('per bin: type-7 p5, median and p95 of the resumed cycles, the max and its cycle and phase', () => {
    const { perBin, bins } = binCycles(table, 2);
    expect(perBin).toBe(5);
    expect(bins.length).toBe(2);
    const [first, second] = bins;
    expect(first).toMatchObject({
      cycleFrom: 1,
      cycleTo: 5,
      cycleMid: 3,
      cycles: 5,
      resumed: 5,
      medianMs: 300,
      maxMs: 5000,
      maxCycle: 5,
      maxPhase: 'restore',
      failed: 0,
    });
    expect(first!.p5Ms).toBeCloseTo(120, 9); // h = 0.2: 100 + 0.2 * 100
    expect(first!.p95Ms).toBeCloseTo(4080, 9); // h = 3.8: 400 + 0.8 * 4600
    expect(second).toMatchObject({
      cycleFrom: 6,
      cycleTo: 10,
      cycleMid: 8,
      cycles: 5,
      resumed: 4,
      medianMs: 300,
      maxMs: 450,
      maxCycle: 10,
      maxPhase: 'work',
    });
    expect(second!.p5Ms).toBeCloseTo(165, 9); // h = 0.15 over [150, 250, 350, 450]
    expect(second!.p95Ms).toBeCloseTo(435, 9); // h = 2.85
  });

  test('failures: counted per bin, the worst resumed one and the first never-resumed one located by cycle', () => {
    const [first, second] = binCycles(table, 2).bins;
    expect(first).toMatchObject({
      failed: 0,
      failedResumed: 0,
      failedMaxMs: null,
      failedMaxCycle: null,
      failedNeverResumed: 0,
      firstNeverResumedCycle: null,
    });
    expect(second).toMatchObject({
      failed: 2,
      failedResumed: 1,
      failedMaxMs: 250,
      failedMaxCycle: 8,
      failedNeverResumed: 1,
      firstNeverResumedCycle: 7,
    });
  });

  test('a short last bin, an indeterminate cycle counted as failed, a bin where nothing resumed has no downtime', () => {
    const { bins } = binCycles(
      cycleTable([row(11, 10), row(13, 30), row(15, 20), row(17, null, 'indeterminate'), row(19, null, 'fail')]),
      3,
    );
    expect(bins.map((b) => [b.cycleFrom, b.cycleTo, b.cycles])).toEqual([
      [11, 13, 2],
      [15, 17, 2],
      [19, 19, 1],
    ]);
    expect(bins[0]).toMatchObject({ medianMs: 20, maxMs: 30, maxCycle: 13 });
    expect(bins[1]).toMatchObject({
      resumed: 1,
      medianMs: 20,
      failed: 1,
      failedNeverResumed: 1,
      firstNeverResumedCycle: 17,
    });
    expect(bins[2]).toMatchObject({
      resumed: 0,
      p5Ms: null,
      medianMs: null,
      p95Ms: null,
      maxMs: null,
      maxCycle: null,
      maxPhase: null,
      failed: 1,
    });
  });

  test('the binned spec renders without compiler warnings, a bin with no downtime included', async () => {
    const binning = binCycles(
      cycleTable([
        row(1, 100),
        row(2, 120),
        row(3, null, 'fail'),
        row(4, null, 'fail'),
        row(5, 90),
        row(6, 900, 'fail'),
      ]),
      3,
    );
    const warnings: string[] = [];
    const svg = await renderSvg(binnedDowntimeSpec(6, binning), 'chart-test', warnings);
    expect(warnings).toEqual([]);
    expect(svg).toContain('aria-label="firstNeverResumedCycle: 3"');
    expect(svg).toContain('aria-label="failedMaxCycle: 6; failedMaxMs: 900"');
  });
});
