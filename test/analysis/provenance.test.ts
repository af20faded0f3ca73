// Compare's provenance warnings (issue 13, finding 10): a run compared with itself (same folder or same run id) is
// named, and so is each fact two runs do not share (scenario, target, seed, cycle count, harness version, machine);
// two runs measured alike give no warning.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { comparisonWarnings, runProvenance, type RunProvenance } from '../../harness/analysis/provenance.js';
import { fixtureJournals } from '../helpers/journals.js';

const base: RunProvenance = {
  dir: '/runs/a',
  runId: 'a',
  scenario: 'default',
  target: 'process',
  seed: 3,
  cycles: 40,
  harnessVersion: '0.1.0',
  machine: 'AMD EPYC, 2 cores',
  kernel: '6.1.0-40-cloud-amd64',
  cores: 2,
  load: { p50: 0.8, saturated: false },
};

describe('comparisonWarnings', () => {
  it('says nothing for two distinct runs measured alike', () => {
    expect(comparisonWarnings(base, { ...base, dir: '/runs/b', runId: 'b' })).toEqual([]);
  });

  it('names a run compared with itself, by folder or by run id', () => {
    expect(comparisonWarnings(base, base)).toEqual([
      'both sides are the same run (a, folder /runs/a): comparing a run with itself finds no change',
    ]);
    expect(comparisonWarnings(base, { ...base, dir: '/copy/a' })).toEqual([
      'both sides are the same run (run id a, in /runs/a and /copy/a): comparing a run with itself finds no change',
    ]);
  });

  it('names every fact the two runs do not share, in a fixed order', () => {
    const other: RunProvenance = {
      dir: '/runs/b',
      runId: 'b',
      scenario: 'torn-checkpoint',
      target: 'microvm',
      seed: 5,
      cycles: 6,
      harnessVersion: '0.2.0',
      machine: 'Intel Xeon, 8 cores',
      kernel: '6.12.0',
      cores: 8,
      load: { p50: 1.5, saturated: false },
    };
    expect(comparisonWarnings(base, other)).toEqual([
      'A and B differ in scenario: default vs torn-checkpoint (not measured alike)',
      'A and B differ in target: process vs microvm (not measured alike)',
      'A and B differ in seed: 3 vs 5 (not measured alike)',
      'A and B differ in cycle count: 40 vs 6 (not measured alike)',
      'A and B differ in harness version: 0.1.0 vs 0.2.0 (not measured alike)',
      'A and B differ in machine: AMD EPYC, 2 cores vs Intel Xeon, 8 cores (not measured alike)',
      'A and B differ in kernel: 6.1.0-40-cloud-amd64 vs 6.12.0 (not measured alike)',
    ]);
    expect(comparisonWarnings(base, { ...other, ...base, dir: '/runs/b', runId: 'b', cycles: 41 })).toEqual([
      'A and B differ in cycle count: 40 vs 41 (not measured alike)',
    ]);
  });
});

describe('comparisonWarnings on machine load', () => {
  const b = { ...base, dir: '/runs/b', runId: 'b' };
  it('warns when one side was saturated and the other not', () => {
    expect(comparisonWarnings(base, { ...b, load: { p50: 5.5, saturated: true } })).toEqual([
      "A and B differ in machine load: load p50 0.8 on 2 cores vs load p50 5.5 on 2 cores, saturated (latency differences may be the machine's, not the system's)",
    ]);
  });

  it('warns when the load p50 differs by more than 1 per core, even with neither saturated', () => {
    const quiet = { ...base, cores: 8, load: { p50: 0.5, saturated: false } };
    expect(comparisonWarnings(quiet, { ...b, cores: 8, load: { p50: 8.6, saturated: false } })).toHaveLength(1);
    expect(comparisonWarnings(quiet, { ...b, cores: 8, load: { p50: 8.4, saturated: false } })).toEqual([]);
  });

  it('says nothing of load when both are alike or either was not sampled (negative control)', () => {
    expect(comparisonWarnings(base, { ...b, load: { p50: 1.6, saturated: false } })).toEqual([]);
    expect(comparisonWarnings(base, { ...b, load: null })).toEqual([]);
  });
});

describe('runProvenance', () => {
  it('reads the run id, scenario, seed, size and machine from an analysed fixture run', async () => {
    const dir = path.join(fixtureJournals, 'process-default');
    const { summary } = (await loadRuns([dir])).analysis;
    expect(runProvenance(summary, dir)).toEqual({
      dir,
      runId: '20261201T025632-default-s3',
      scenario: 'default',
      target: 'process',
      seed: 3,
      cycles: 6,
      harnessVersion: '0.1.0',
      machine: 'AMD EPYC, 2 cores',
      kernel: '6.18.44-fc-v657',
      cores: 2,
      load: null,
    });
  });
});
