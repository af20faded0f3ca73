// A rate whose trials come in clusters (sessions): the design effect, Student's t, and the Wilson interval at the
// effective n (Korn & Graubard 1998), checked against figures computed apart from the code, and the rate gate that
// judges on it: one bad session among good ones cannot lend the pooled rate the n of independent trials.
import { describe, expect, it } from 'vitest';
import { clusteredWilson, designEffect, tForLevel } from '../../harness/stats/cluster.js';
import { wilson, wilsonAt } from '../../harness/stats/wilson.js';
import { measure } from '../../harness/gates/metrics.js';
import { evaluateGate, loadGates } from '../../harness/gates/evaluate.js';
import { parseThreshold } from '../../harness/gates/threshold.js';
import type { Threshold } from '../../harness/gates/types.js';
import type { Summary } from '../../harness/analysis/summary.js';

const c = (successes: number, trials: number) => ({ successes, trials });

describe("Student's t", () => {
  it('matches the tables (two-sided 95%: df 1 12.706, df 7 2.365, df 30 2.042; 99%, df 7: 3.499)', () => {
    expect(tForLevel(0.95, 1)).toBeCloseTo(12.706, 2);
    expect(tForLevel(0.95, 7)).toBeCloseTo(2.3646, 3);
    expect(tForLevel(0.95, 30)).toBeCloseTo(2.0423, 3);
    expect(tForLevel(0.99, 7)).toBeCloseTo(3.4995, 3);
    expect(() => tForLevel(0.95, 0)).toThrow(RangeError);
  });
});

describe('the design effect', () => {
  it('is 1 when the clusters agree (no spread beyond chance), or sit at one edge, or are fewer than 2', () => {
    expect(designEffect([c(90, 100), c(90, 100), c(90, 100)])).toBe(1);
    expect(designEffect([c(100, 100), c(80, 80)])).toBe(1);
    expect(designEffect([c(3, 10)])).toBe(1);
  });

  it('is the between-cluster variance of the ratio estimator over the binomial one (hand-computed: 53.33)', () => {
    // 7 sessions 100/100 and one 50/100: p = 0.9375; residuals 6.25 (x7) and -43.75; 8/7 * 2187.5 / 800^2 = 0.00390625;
    // binomial p(1-p)/n = 7.32421875e-5; ratio 53.333
    expect(designEffect([...Array.from({ length: 7 }, () => c(100, 100)), c(50, 100)])).toBeCloseTo(53.333, 2);
  });
});

describe('the clustered Wilson interval', () => {
  it('is the Wilson interval at n / deff * (z / t_{k-1})^2, never at more than n', () => {
    const same = clusteredWilson(Array.from({ length: 8 }, () => c(80, 80)));
    expect(same.designEffect).toBe(1);
    expect(same.effectiveN).toBeCloseTo(640 * (1.959964 / 2.364624) ** 2, 1); // 439.7
    expect(same.interval![0]).toBeCloseTo(wilsonAt(1, 439.7)[0], 4);
    // few sessions widen it even when they agree: its lower bound is below the naive one
    expect(same.interval![0]).toBeLessThan(wilson(640, 640)![0]);
    expect(clusteredWilson([c(5, 10)]).effectiveN).toBe(10); // one cluster: the binomial interval
    expect(clusteredWilson([c(0, 0), c(0, 0)]).interval).toBeNull();
  });

  it('wilsonAt is wilson at whole n', () => {
    for (const [k, n] of [
      [0, 7],
      [3, 7],
      [7, 7],
      [95, 100],
    ] as const)
      expect(wilsonAt(k / n, n)).toEqual(wilson(k, n));
  });
});

describe('a rate gate of a run of several sessions', () => {
  const threshold = parseThreshold('wilson95.lo >= 0.9') as Threshold;
  const session = (ok: number, n: number): Partial<Summary> => ({
    killResume: { ...c(ok, n), wilson95: wilson(ok, n) },
  });
  const bad = [...Array.from({ length: 7 }, () => session(100, 100)), session(50, 100)];
  const pooled: Partial<Summary> = { killResume: { successes: 750, trials: 800, wilson95: wilson(750, 800) } };

  it('is judged at the effective n: one bad session of eight does not pass on the n of 800 independent trials', () => {
    const naive = measure('killResume', threshold, pooled, {});
    expect(naive.value!).toBeGreaterThan(0.9); // the negative control: judged as independent trials, it would pass
    const clustered = measure('killResume', threshold, pooled, { sessions: bad });
    expect(clustered.value!).toBeLessThan(0.8);
    expect(clustered.note).toMatch(
      /clustered by session \(8 with trials; design effect 53\.33\): judged at effective n 10 of 800/,
    );
  });

  it("counts effective trials against the gate's minN: two agreeing sessions of 80 are not enough, and not a fail", () => {
    const gate = loadGates().find((g) => g.metric === 'killResume')!;
    const two = [session(80, 80), session(80, 80)];
    const all: Partial<Summary> = { killResume: { successes: 160, trials: 160, wilson95: wilson(160, 160) } };
    const r = evaluateGate(gate, all, { sessions: two });
    expect(r.n).toBe(3); // 160 * (1.96 / 12.71)^2 = 3.8
    expect(r.verdict).toBe('insufficient');
    expect(r.note).toContain(`needs n >= ${gate.minN}`);
    // the control: one session's 160 trials pass
    expect(evaluateGate(gate, all, {}).verdict).toBe('pass');
  });

  it('says so when the sessions agree, and is judged on an interval no narrower than the naive one', () => {
    const good = Array.from({ length: 8 }, () => session(100, 100));
    const all: Partial<Summary> = { killResume: { successes: 800, trials: 800, wilson95: wilson(800, 800) } };
    const m = measure('killResume', threshold, all, { sessions: good });
    expect(m.note).toMatch(/no spread between sessions beyond chance/);
    expect(m.value!).toBeLessThan(wilson(800, 800)![0]);
    expect(m.value!).toBeGreaterThan(0.99);
  });
});
