// The scope line on kills aimed at a restore: how many the restore outran (no kill cut it), counted from the cycles'
// planned phase, observed phase and restoreKills, in journals written before and after missed kills stopped being sent.
import { describe, expect, it } from 'vitest';
import { cycleRows, cycleTable } from '../../harness/analysis/tables.js';
import type { CycleRow, RunAnalysis } from '../../harness/analysis/summary.js';
import { missedRestoreKills, scopeLimitations } from '../../harness/report/limitations.js';
import { makeAnalysis, makeGates } from './fixtures.js';

/** The fixture run with each cycle row replaced by `edit` of it. */
function withCycles(a: RunAnalysis, edit: (r: CycleRow, i: number) => CycleRow): RunAnalysis {
  return { ...a, cycles: cycleTable(cycleRows(a.cycles).map(edit)) };
}

describe('missed restore kills', () => {
  const base = makeAnalysis({ cycles: 6, restoreKills: true });
  const aimedAt = (r: CycleRow): CycleRow => ({ ...r, phase: 'restore' });

  it('a restore cut by its kill is not missed; one the restore outran (restoreKills 0) is', () => {
    const a = withCycles(base, (r, i) =>
      i < 4
        ? { ...aimedAt(r), observedPhase: 'restore', restoreKills: 1 }
        : { ...aimedAt(r), observedPhase: 'work', restoreKills: 0 },
    );
    expect(missedRestoreKills(a)).toEqual({ aimed: 6, missed: 2 });
    expect(scopeLimitations(a, makeGates(a))).toContain(
      '2 of 6 kills aimed at a restore did not cut one: the restore had ended before the aimed delay (scenario kill.restoreDelayMs), so those cycles were judged as a plain resume.',
    );
  });

  it('journals from before the rule: a kill sent after the restore ended (observed work, restoreKills 1) is missed too', () => {
    const a = withCycles(base, (r, i) => ({
      ...aimedAt(r),
      observedPhase: i === 0 ? 'work' : 'restore',
      restoreKills: 1,
    }));
    expect(missedRestoreKills(a)).toEqual({ aimed: 6, missed: 1 });
    expect(scopeLimitations(a, makeGates(a)).join('\n')).toContain('1 of 6 kills aimed at a restore did not cut one');
  });

  it('indeterminate cycles are not counted; no line when every aimed kill landed', () => {
    const a = withCycles(base, (r, i) =>
      i === 0
        ? { ...aimedAt(r), outcome: 'indeterminate', observedPhase: 'restore', restoreKills: 0 }
        : { ...r, phase: 'work', observedPhase: 'work', restoreKills: 0 },
    );
    expect(missedRestoreKills(a)).toEqual({ aimed: 0, missed: 0 });
    expect(scopeLimitations(a, makeGates(a)).join('\n')).not.toContain('did not cut one');
  });
});

describe('the `ahead` allowance of an exec adapter', () => {
  const a = makeAnalysis({ cycles: 4 });
  const of = (target: string): string =>
    scopeLimitations({ ...a, summary: { ...a.summary, target } }, makeGates(a)).join('\n');

  it('a run on an exec adapter says its resumes were allowed the steps of its restore time; others do not', () => {
    expect(of('exec')).toContain("from the adapter's restore request to its first full heartbeat");
    expect(of('process')).not.toContain('restore request');
    expect(of('microvm')).not.toContain('restore request');
  });
});
