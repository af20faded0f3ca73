// A run stopped when decided is judged on its gates' anytime decisions; what decides it: every gate, or one fail.
import { describe, expect, it } from 'vitest';
import { evaluateGates, loadGates } from '../../harness/gates/evaluate.js';
import { judgement } from '../../harness/gates/judge.js';
import { decidedBy, judgedOnAnytime } from '../../harness/gates/sequential.js';
import { isSaturatedInconclusive, verdictFacts } from '../../harness/gates/verdict.js';
import { spread } from './fixtures.js';
import type { GateResult } from '../../harness/gates/types.js';
import { healthySamples, healthySummary } from './fixtures.js';
import { saturatedLoad } from '../helpers/gates.js';

const healthy = (): GateResult[] =>
  evaluateGates(loadGates(), healthySummary(), { lostBeyondCheckpoint: 0, samples: healthySamples() });

describe('runs stopped when decided', () => {
  it('are decided by every gate once each is pass or fail, by the first fail at once, else not yet', () => {
    const gates = healthy();
    expect(decidedBy(gates)).toBe('every gate');
    const one = gates.map((g) =>
      g.id === 4 ? { ...g, anytime: { ...g.anytime!, decision: 'undecided' as const } } : g,
    );
    expect(decidedBy(one)).toBeNull();
    const failed = one.map((g) => (g.id === 6 ? { ...g, anytime: { ...g.anytime!, decision: 'fail' as const } } : g));
    expect(decidedBy(failed)).toBe('gate 6 (kill-resume-success) failed');
    expect(decidedBy([])).toBeNull();
    expect(decidedBy(gates.map(({ anytime: _a, ...g }) => g))).toBeNull(); // no anytime decision: never decided
  });

  it('judge a gate on its anytime decision (undecided: inconclusive) and keep the fixed-n verdict beside it', () => {
    const g6 = healthy().find((g) => g.id === 6)!;
    expect(judgedOnAnytime(g6)).toMatchObject({ verdict: 'pass', fixedN: 'pass', solid: true });
    const undecided = judgedOnAnytime({ ...g6, anytime: { ...g6.anytime!, decision: 'undecided' } });
    expect(undecided).toMatchObject({ verdict: 'inconclusive', fixedN: 'pass', solid: false });
    expect(undecided.note).toContain('not decided when the run stopped: inconclusive');
    expect(
      judgedOnAnytime({ ...g6, verdict: 'insufficient', anytime: { ...g6.anytime!, decision: 'pass' } }).verdict,
    ).toBe('pass');
  });

  it('apply the saturated-machine rule first: a slow timing gate is inconclusive (saturated), not decided fail', () => {
    const samples = { ...healthySamples(), downtimeMs: spread(80, 1200, 1500) };
    const summary = healthySummary();
    summary.downtimeMs = { ...summary.downtimeMs, n: 80, p95: 1485, max: 1500 };
    const gates = evaluateGates(loadGates(), summary, { lostBeyondCheckpoint: 0, samples });
    const { gates: _g, ...run } = verdictFacts(summary, gates);
    const g4 = judgement(gates, run, { machineLoad: saturatedLoad, strict: false }, true).gates.find(
      (g) => g.id === 4,
    )!;
    expect(g4).toMatchObject({ verdict: 'inconclusive', anytime: { decision: 'undecided' } });
    expect(isSaturatedInconclusive(g4)).toBe(true);
    expect(g4.note).not.toContain('decided fail');
    const strict = judgement(gates, run, { machineLoad: saturatedLoad, strict: true }, true).gates.find(
      (g) => g.id === 4,
    )!;
    expect(strict).toMatchObject({ verdict: 'fail', fixedN: 'fail' });
  });
});
