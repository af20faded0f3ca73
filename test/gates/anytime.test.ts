// Each shipped gate carries its anytime-valid decision beside its fixed-n verdict: rates and quantiles by the mixture
// e-process, counts and ratios by their own rule; a saturated machine's timing fail is undecided.
import { describe, expect, it } from 'vitest';
import { evaluateGates, loadGates } from '../../harness/gates/evaluate.js';
import { applyTiming } from '../../harness/gates/judge.js';
import type { GateEvidence, GateResult } from '../../harness/gates/types.js';
import { healthySamples, healthySummary, spread } from './fixtures.js';
import { saturatedLoad } from '../helpers/gates.js';

const gates = loadGates();
const clean: GateEvidence = { lostBeyondCheckpoint: 0, samples: healthySamples() };

function byId(results: GateResult[], id: number): GateResult {
  const g = results.find((r) => r.id === id);
  if (g === undefined) throw new Error(`no gate ${id}`);
  return g;
}

describe('anytime-valid gate decisions', () => {
  it('decides every shipped gate of a healthy 100-cycle run: pass, each labelled with its method', () => {
    const results = evaluateGates(gates, healthySummary(), clean);
    expect(results.map((g) => [g.id, g.anytime?.decision, g.anytime?.note])).toEqual(
      results.map((g) => [g.id, 'pass', g.anytime?.note]),
    );
    const rate = byId(results, 6).anytime;
    expect(rate).toMatchObject({ method: 'e-process', alpha: 0.05, bar: 0.95, successes: 100, trials: 100 });
    expect(rate?.interval?.[0]).toBeGreaterThan(0.95);
    // p95 < 1000 is the rate of downtime samples < 1000 against 95%
    expect(byId(results, 4).anytime).toMatchObject({ method: 'e-process', bar: 0.95, successes: 100, trials: 100 });
    expect(byId(results, 2).anytime?.method).toBe('gate-rule');
    expect(byId(results, 5).anytime?.method).toBe('gate-rule');
  });

  it('passes a rate at 65/65, where the fixed-n Wilson verdict is still insufficient (its minN is 73)', () => {
    const at = (n: number) => {
      const s = healthySummary();
      s.killResume = { successes: n, trials: n, wilson95: [0, 1] };
      return byId(evaluateGates(gates, s, clean), 6);
    };
    expect(at(64).anytime?.decision).toBe('undecided');
    expect(at(65).anytime?.decision).toBe('pass');
    expect(at(65).verdict).toBe('insufficient');
    expect(at(73).verdict).toBe('pass');
  });

  it('fails a rate after two failures in a row, before minN', () => {
    const s = healthySummary();
    s.killResume = { successes: 0, trials: 3, wilson95: [0, 0.56] };
    const g = byId(evaluateGates(gates, s, clean), 6);
    expect(g.anytime?.decision).toBe('fail');
    expect(g.anytime?.interval?.[1]).toBeLessThan(0.95);
  });

  it('decides a quantile gate from its raw samples: fails when 10 of 40 are over the bar, undecided without samples', () => {
    const slow = {
      ...clean,
      samples: { ...healthySamples(), downtimeMs: [...spread(30, 100, 300), ...spread(10, 1200, 1500)] },
    };
    expect(byId(evaluateGates(gates, healthySummary(), slow), 4).anytime).toMatchObject({
      decision: 'fail',
      successes: 30,
      trials: 40,
    });
    const none = byId(evaluateGates(gates, healthySummary(), { lostBeyondCheckpoint: 0 }), 4).anytime;
    expect(none?.decision).toBe('undecided');
    expect(none?.note).toContain('no raw samples');
  });

  it('takes a count gate as decided by its own rule: any violation is a final fail', () => {
    const s = healthySummary();
    s.violations = 1;
    expect(byId(evaluateGates(gates, s, clean), 2).anytime?.decision).toBe('fail');
    const few = healthySummary();
    few.killResume = { successes: 10, trials: 10, wilson95: [0.7, 1] };
    expect(byId(evaluateGates(gates, few, clean), 2).anytime?.decision).toBe('undecided'); // below minN: insufficient
  });

  it('makes a timing gate anytime fail undecided on a saturated machine, unless strict', () => {
    const slow = { ...clean, samples: { ...healthySamples(), downtimeMs: spread(40, 1200, 1500) } };
    const judged = evaluateGates(gates, healthySummary(), slow);
    expect(byId(judged, 4).anytime?.decision).toBe('fail');
    expect(byId(applyTiming(judged, { machineLoad: saturatedLoad, strict: false }), 4).anytime?.decision).toBe(
      'undecided',
    );
    expect(byId(applyTiming(judged, { machineLoad: saturatedLoad, strict: true }), 4).anytime?.decision).toBe('fail');
  });
});
