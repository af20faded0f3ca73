// What to do next, as the first screen and summary.md say it: exact steps for a failing, a short and a passing run
// judged by the shipped gates, an inconclusive gate, a caught and a missed negative control, an adapter fault and
// indeterminate cycles; the gates told in the lattice's order.
import { describe, expect, test } from 'vitest';
import type { RunAnalysis } from '../../harness/analysis/summary.js';
import type { GateResult } from '../../harness/gates/types.js';
import { buildModel } from '../../harness/report/model.js';
import { storyGates, type NextStep } from '../../harness/report/next-steps.js';
import { makeAnalysis, makeGates } from './fixtures.js';
import { plantedGates } from './planted-gates.js';
import { storyRun } from './story-fixtures.js';

/** Each step as one line, commands in backticks. */
const lines = (steps: readonly NextStep[]): string[] =>
  steps.map((s) => s.parts.map((p) => (typeof p === 'string' ? p : `\`${p.code}\``)).join(''));
const stepsOf = (analysis: RunAnalysis, gates: GateResult[]): string[] => lines(buildModel(analysis, gates).nextSteps);

describe('next steps', () => {
  test('a failing run: the failed cycles once for the gates that share them, the slowest cycles, then soak check', () => {
    const { analysis, gates } = storyRun('fail');
    expect(stepsOf(analysis, gates)).toEqual([
      "Gates 2 (Checkpoint atomicity) and 6 (Kill-and-resume success) failed: read cycles 7, 31, 52 (failed) in cycles.csv and the run folder's hosts.log.",
      "Gate 4 (Session resume latency p95) failed: read the slowest cycles: 68 (2,210 ms), 61 (2,120 ms), 54 (2,030 ms) in cycles.csv and the run folder's hosts.log.",
      "Gate 8 (Torn-checkpoint safety) failed: read cycle 7 (failed, killed during a checkpoint write) in cycles.csv and the run folder's hosts.log.",
      'Re-run the checker over the journaled observations: `soak check runs/run-5-80` (exit 1: the violations stand; a verdict that changes points at the checker, not the system under test).',
    ]);
    expect(buildModel(analysis, gates).nextSteps.map((s) => s.gates)).toEqual([[2, 6], [4], [8], []]);
  });

  test("a short run: how many more cycles give every gate its minimum at this run's rates; boots apart", () => {
    const { analysis, gates } = storyRun('insufficient');
    // gate 6: 20 trials of 73 at 1 per cycle -> 53 more; gate 8: 3 torn-write kills of 10 at 0.15 per cycle -> 47
    expect(stepsOf(analysis, gates)).toEqual([
      "Gates 2 (Checkpoint atomicity), 4 (Session resume latency p95), 6 (Kill-and-resume success), 7 (No loss beyond the last checkpoint) and 8 (Torn-checkpoint safety) are below their minimum n: about 53 more cycles give each its minimum at this run's rates (gate 6 needs the most: n = 20 of 73, 1 per cycle); run them and report both runs as one sample: `soak report runs/run-5-20 runs/<next run>`.",
      "Gate 1 (Boot time) has n = 21 of the 59 it needs: boot samples are booted before the cycles, so raise the scenario's bootSamples by 38 (or report more runs together).",
    ]);
  });

  test('a passing run: nothing blocks sign-off, read the limits', () => {
    const { analysis, gates } = storyRun('pass');
    expect(stepsOf(analysis, gates)).toEqual([
      'Nothing blocks sign-off on these 8 gates. Read the scope and limitations below before quoting a figure.',
    ]);
  });

  test('an inconclusive gate: more cycles narrow its bounds, reported together with this run', () => {
    const analysis = makeAnalysis({ cycles: 80, seed: 5, scenario: 'planted' });
    const steps = stepsOf(analysis, plantedGates(analysis));
    expect(steps.filter((s) => s.startsWith('Gate 9 (Downtime p95 near its bar) is inconclusive at 95%'))).toEqual([
      'Gate 9 (Downtime p95 near its bar) is inconclusive at 95%: its point estimate and its 95% bounds sit on opposite sides of the bar. More cycles narrow the bounds: run more and report the runs together, `soak report runs/run-5-80 runs/<next run>`.',
    ]);
  });

  test('a negative control: caught, nothing to do; missed, soak check; its gates are not told', () => {
    const control = (failedCycles: number[]) => {
      const a = makeAnalysis({ cycles: 20, seed: 4, failedCycles });
      return { ...a, summary: { ...a.summary, negativeControl: true } };
    };
    const caught = control([1, 2]);
    expect(stepsOf(caught, makeGates(caught))).toEqual([
      'Nothing: this negative control was caught, so the checker can fail when it should.',
    ]);
    const missed = control([]);
    expect(stepsOf(missed, makeGates(missed))).toEqual([
      'The checker missed the planted fault: do not trust its passes for this fault until it is found.',
      'Re-run the checker over the journaled observations: `soak check runs/run-4-20` (exit 1: the violations stand; a verdict that changes points at the checker, not the system under test).',
    ]);
  });

  test('an adapter fault comes first; indeterminate cycles are named', () => {
    const a = makeAnalysis({ cycles: 30, seed: 2 });
    const faulty = {
      ...a,
      summary: {
        ...a.summary,
        adapterFaults: { count: 1, samples: ['adapter exited'] },
        cycles: { ...a.summary.cycles, indeterminate: 2 },
      },
    };
    const steps = stepsOf(faulty, makeGates(faulty));
    expect(steps[0]).toBe(
      'The exec adapter broke the target protocol, so this run measured the adapter: run the conformance kit on it, `soak target check <adapter>`, fix it, then run again.',
    );
    expect(steps.at(-1)).toBe(
      '2 cycles were indeterminate (the harness or the machine, not the system under test): see "Indeterminate cycles" below; they count in no rate.',
    );
  });

  test('no gate judged: measurements only', () => {
    expect(stepsOf(makeAnalysis({ cycles: 10 }), [])).toEqual([
      'No gate was judged: this report states measurements only.',
    ]);
  });

  test('more than eight failed cycles are counted, not listed', () => {
    const failedCycles = Array.from({ length: 11 }, (_, i) => 3 * i + 1);
    const a = makeAnalysis({ cycles: 40, seed: 3, failedCycles });
    expect(stepsOf(a, makeGates(a))[0]).toContain('read cycles 1, 4, 7, 10, 13, 16, 19, 22 and 3 more (failed)');
  });

  test('the gates told: fail, then inconclusive, then insufficient, by id within each; passes left out', () => {
    const g = (id: number, verdict: GateResult['verdict']) => ({ ...makeGates(makeAnalysis())[0]!, id, verdict });
    const told = storyGates([g(1, 'insufficient'), g(2, 'pass'), g(3, 'fail'), g(4, 'inconclusive'), g(5, 'fail')]);
    expect(told.map((x) => [x.id, x.verdict])).toEqual([
      [3, 'fail'],
      [5, 'fail'],
      [4, 'inconclusive'],
      [1, 'insufficient'],
    ]);
  });
});
