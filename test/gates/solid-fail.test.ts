// Below its minimum n a gate never passes, but fails when its whole 95% interval (or one-sided bound) is beyond the bar.
import { describe, expect, it } from 'vitest';
import { evaluateGates, loadGates, parseGate } from '../../harness/gates/evaluate.js';
import type { Gate } from '../../harness/gates/types.js';
import { wilson } from '../../harness/stats/wilson.js';
import type { Summary } from '../../harness/analysis/summary.js';
import { healthySamples, healthySummary, spread } from './fixtures.js';

const gates = loadGates();
const bootGate = gates[0]!;
const successGate = gates[5]!;

function gate(text: string): Gate {
  const problems: string[] = [];
  const g = parseGate(`id: 9\ntitle: t\n${text}\n`, '09-t.yaml', problems);
  if (g === null) throw new Error(problems.join('; '));
  return g;
}

function rate(successes: number, trials: number, g: Gate = successGate) {
  const s = healthySummary();
  s.killResume = { successes, trials, wilson95: null };
  return evaluateGates([g], s)[0]!;
}

function boots(values: number[], g: Gate = bootGate) {
  const sorted = [...values].sort((a, b) => a - b);
  const summary: Partial<Summary> = {
    bootMs: {
      n: values.length,
      min: sorted[0]!,
      p50: 0,
      p90: 0,
      p95: sorted.at(-1)!,
      p99: 0,
      max: sorted.at(-1)!,
      mean: 0,
    },
  };
  return evaluateGates([g], summary, { samples: { ...healthySamples(), bootMs: values } })[0]!;
}

describe('gate 6 below its minimum n', () => {
  it('6/11 resumed (Wilson 95% [28.0%, 78.7%], all under the 95% bar) is a solid fail, with n and the rule stated', () => {
    const r = rate(6, 11);
    expect(r.interval![0]).toBeCloseTo(0.28, 2);
    expect(r.interval![1]).toBeCloseTo(0.787, 3);
    expect(r).toMatchObject({ verdict: 'fail', solid: true, n: 11, minN: 73 });
    expect(r.note).toContain('n = 11 is below the minimum n 73 for a pass');
    expect(r.note).toContain('whole 95% interval is beyond the bar');
  });

  it('an interval that reaches the bar stays insufficient, and a pass still needs minimum n', () => {
    expect(rate(10, 11)).toMatchObject({ verdict: 'insufficient', solid: false }); // hi = 0.98 reaches 0.95
    expect(rate(72, 72)).toMatchObject({ verdict: 'insufficient', solid: false });
  });

  it('boundary: an upper end touching the bar is not solid; just beyond it is', () => {
    const hi = wilson(6, 11)![1];
    expect(rate(6, 11, gate(`metric: killResume\nthreshold: wilson95.lo >= ${hi}\nminN: 73`)).verdict).toBe(
      'insufficient',
    );
    const above = hi + 1e-9;
    expect(rate(6, 11, gate(`metric: killResume\nthreshold: wilson95.lo >= ${above}\nminN: 73`))).toMatchObject({
      verdict: 'fail',
      solid: true,
    });
  });

  it('at or above minimum n the Wilson lower bound decides, as before', () => {
    expect(rate(98, 100).verdict).toBe('fail'); // lower bound 0.930: fails although the interval reaches 0.95
    expect(rate(100, 100).verdict).toBe('pass');
  });
});

describe('gate 1 (boot p95, minimum n 59) below its minimum n', () => {
  it('9 boots all above the bar: the one-sided 95% lower bound of p95 is above it, a solid fail', () => {
    const r = boots(spread(9, 1100, 1500));
    expect(r).toMatchObject({ verdict: 'fail', solid: true, n: 9, minN: 59 });
    expect(r.bounds![0]).toBeGreaterThan(1000);
    expect(r.note).toContain('n = 9 is below the minimum n 59 for a pass');
  });

  it('9 boots with the lower bound under the bar, or all fast, stay insufficient', () => {
    expect(boots([...spread(7, 200, 900), 1200, 1300])).toMatchObject({ verdict: 'insufficient', solid: false });
    expect(boots(spread(9, 200, 300))).toMatchObject({ verdict: 'insufficient', solid: false });
  });

  it('boundary: a lower bound equal to the bar is not solid; just above it is', () => {
    // n = 9: the lower one-sided 95% bound of p95 is the 7th smallest sample (P(Bin(9, 0.95) >= 7) = 0.992)
    const touching = boots([900, 950, 980, 990, 995, 999, 1000, 1100, 1200]);
    expect(touching.bounds![0]).toBe(1000);
    expect(touching).toMatchObject({ verdict: 'insufficient', solid: false });
    const beyond = boots([900, 950, 980, 990, 995, 999, 1000.5, 1100, 1200]);
    expect(beyond).toMatchObject({ verdict: 'fail', solid: true });
  });

  it('without raw samples nothing bounds the p95: insufficient, never a fail on the point alone', () => {
    const summary: Partial<Summary> = {
      bootMs: { n: 9, min: 1100, p50: 1300, p90: 1450, p95: 1480, p99: 1500, max: 1500, mean: 1300 },
    };
    expect(evaluateGates([bootGate], summary)[0]).toMatchObject({ verdict: 'insufficient' });
  });

  it('a max gate below its minimum n never passes; a max already over a "<" bar fails (the max only grows)', () => {
    const g = gate('metric: bootMs\nthreshold: max < 1000\nminN: 59');
    expect(boots(spread(9, 200, 300), g).verdict).toBe('insufficient');
    expect(boots(spread(9, 200, 1300), g)).toMatchObject({ verdict: 'fail' });
  });
});
