// What a report says first: run status with planned vs run cycles, the saturated-machine banner (by the one rule in
// analysis/machine-load.ts), the machine count of a merge; a quiet complete run gets no banner (negative control).
import { describe, expect, it } from 'vitest';
import { saturationReason, summarizeMachineLoad } from '../../harness/analysis/machine-load.js';
import { machinesText, provenanceLine, saturationBanner, sourceRows } from '../../harness/report/provenance.js';
import { timingJudgement } from '../../harness/gates/judge.js';
import type { Summary } from '../../harness/analysis/summary.js';
import { makeAnalysis } from './fixtures.js';
import { plantedSaturatedMerge } from './planted-provenance.js';

describe('the saturation rule', () => {
  it('load p50 above the cores, or steal p50 above 10%; at the bar is not above it', () => {
    expect(saturationReason(5.5, 0, 2)).toBe('load p50 5.5 > 2 cores');
    expect(saturationReason(2, 10, 2)).toBeNull();
    expect(saturationReason(1, 12.5, 2)).toBe('CPU steal p50 12.5% > 10%');
    expect(saturationReason(3, 11, 2)).toBe('load p50 3 > 2 cores, CPU steal p50 11% > 10%');
  });

  it('is judged on the medians, so one spike does not make a run saturated', () => {
    const m = summarizeMachineLoad({ load1: [0.5, 0.7, 9], stealPct: [0, 0, 50], otherCpuPct: [1, 2, 3] }, 2)!;
    expect(m).toMatchObject({
      samples: 3,
      load1: { p50: 0.7, max: 9 },
      stealPct: { p50: 0, max: 50 },
      saturated: false,
    });
    expect(m.reason).toBeNull();
    expect(summarizeMachineLoad({ load1: [], stealPct: [], otherCpuPct: [] }, 2)).toBeUndefined();
  });
});

/** The banner of a summary whose gates all passed, timing not strict. */
const banner = (s: Summary): string | null =>
  saturationBanner(s, timingJudgement([], { machineLoad: s.machineLoad, strict: false }));

describe('provenance text', () => {
  it('an interrupted merge: status, planned vs run cycles and machines on the first line; the banner', () => {
    const s = plantedSaturatedMerge().summary;
    expect(provenanceLine(s)).toBe('Run interrupted after 37 of 80 planned cycles, merged from 2 runs on 2 machines.');
    expect(machinesText(s)).toBe('2 machines');
    expect(banner(s)).toBe(
      'Measured on a saturated machine: load average p50 5.5 (max 6.1) on 2 cores, CPU steal p50 1% (max 2%), 3 samples; load p50 5.5 > 2 cores. No timing gate failed; a timing figure measured here may still reflect the machine. Other processes took 70.5% of all CPU time (median).',
    );
    expect(sourceRows(s).rows).toEqual([
      [
        'night-s3-shard0of2',
        'AMD EPYC, 2 cores, kernel 6.1.0-40-cloud-amd64 (#1a2b3c4d)',
        '3',
        '1/2',
        '19 (ids 1-37)',
        '40',
        'interrupted',
      ],
      [
        'night-s3-shard1of2',
        'Intel Xeon, 8 cores, kernel 6.12.0 (#9f8e7d6c)',
        '3',
        '2/2',
        '18 (ids 2-36)',
        '40',
        'complete',
      ],
    ]);
  });

  it('a quiet complete single run: one plain first line, no banner, no source rows (negative control)', () => {
    const a = makeAnalysis({ cycles: 30 });
    const s = {
      ...a.summary,
      plannedCycles: 30,
      machineLoad: summarizeMachineLoad({ load1: [0.4], stealPct: [0], otherCpuPct: [3] }, 2)!,
    };
    expect(provenanceLine(s)).toBe('Run complete: 30 of 30 planned cycles.');
    expect(banner(s)).toBeNull();
    expect(sourceRows(s).rows).toEqual([]);
    expect(machinesText(s)).toBe('one machine');
  });
});
