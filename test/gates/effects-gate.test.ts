// Gate 9, exactly-once effects with step-derived keys (issue 34): judged on the Wilson lower bound over step-key
// effects when the run emitted effects, left out (not "insufficient") of runs that emitted none; duplicates or a lost
// effect fail it once n is large enough.
import { describe, expect, it } from 'vitest';
import type { DisciplineSummary, EffectsSummary } from '../../harness/analysis/effects-tally.js';
import type { Summary } from '../../harness/analysis/summary.js';
import { evaluateGates } from '../../harness/gates/evaluate.js';
import { loadGates } from '../../harness/gates/load.js';

const d = (first: number, duplicates: number, lost = 0): DisciplineSummary => ({
  emitted: first + 10,
  first,
  reEmitted: 10,
  duplicates,
  deduplicated: 10 - duplicates,
  worldAhead: 10,
  lost,
  duplicates95: null,
  worldAhead95: null,
  lost95: null,
  reEmittedPerResume: null,
});
const effects = (step: DisciplineSummary): EffectsSummary => ({
  accountings: 40,
  resumes: 39,
  disciplines: { 'step-key': step, 'random-key': d(500, 10), 'no-key': d(500, 10) },
});
const gate9 = (s: Partial<Summary>) => evaluateGates(loadGates(), s).find((g) => g.id === 9);

describe('gate 9: exactly-once effects with deterministic keys', () => {
  it('is left out of a run without effects', () => {
    expect(gate9({})).toBeUndefined();
    expect(evaluateGates(loadGates(), {}).map((g) => g.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('passes 500/500, is insufficient below minN, fails on duplicates or a lost effect', () => {
    expect(gate9({ effects: effects(d(500, 0)) })).toMatchObject({ verdict: 'pass', n: 500 });
    expect(gate9({ effects: effects(d(300, 0)) })).toMatchObject({ verdict: 'insufficient', n: 300 });
    expect(gate9({ effects: effects(d(500, 3)) })).toMatchObject({ verdict: 'fail', n: 500 });
    expect(gate9({ effects: effects(d(500, 0, 2)) })).toMatchObject({ verdict: 'fail', n: 500 });
  });
});
