// The success-rate chart takes the gates whose result says they are a rate judged on a proportion.
import { describe, expect, test } from 'vitest';
import { isRateGate, rateBar, rateRows, wilsonGatesSpec } from '../../../harness/report/charts/gate-chart.js';
import { makeAnalysis, makeGates } from '../fixtures.js';

describe('isRateGate', () => {
  test('a rate metric with unit "%" and an interval', () => {
    expect(isRateGate({ kind: 'rate', unit: '%', interval: [0.9, 1] })).toBe(true);
    expect(isRateGate({ kind: 'rate', unit: '%', interval: null })).toBe(false);
    expect(isRateGate({ kind: 'rate', unit: 'trials', interval: [0, 1] })).toBe(false); // judged on failures
    expect(isRateGate({ kind: 'ratio', unit: 'x', interval: [0.2, 0.9] })).toBe(false);
    expect(isRateGate({ kind: 'count', unit: 'violations', interval: [0, 1] })).toBe(false);
  });
  test('the fixture gates give one row per rate gate, in gate order', () => {
    const a = makeAnalysis();
    expect(rateRows(makeGates(a), a.summary).map((r) => [r.label, r.bar, r.verdict])).toEqual([
      ['1. Kill-and-resume success', 0.85, 'pass'],
      ['3. Torn checkpoint falls back', 0.5, 'pass'],
      ['5. Resume success ≥ 95%', 0.95, 'insufficient'],
    ]);
  });
});

describe('rateBar', () => {
  test('the bar of a Wilson statistic, from the typed statistic (either end), never from other stats', () => {
    expect(rateBar({ stat: { kind: 'wilson', level: 95, side: 'lo' }, bound: 0.95 })).toBe(0.95);
    expect(rateBar({ stat: { kind: 'wilson', level: 99, side: 'hi' }, bound: 0.1 })).toBe(0.1);
    expect(rateBar({ stat: { kind: 'failures' }, bound: 0 })).toBeNull();
    expect(rateBar({ stat: { kind: 'quantile', q: 0.95 }, bound: 0.5 })).toBeNull();
    expect(rateBar({ stat: { kind: 'wilson', level: 95, side: 'lo' }, bound: 1.5 })).toBeNull(); // off the axis
  });
});

describe('success-rate chart', () => {
  test('plots the observed rate as the point, not the Wilson bound the gate is judged on, and says so', () => {
    const a = makeAnalysis({ cycles: 80, failedCycles: [] });
    const rows = rateRows(makeGates(a), a.summary);
    expect(rows[0]).toMatchObject({ value: 1, hi: 1 });
    expect(rows[0]!.lo).toBeCloseTo(0.9542, 4);
    const spec = JSON.stringify(wilsonGatesSpec(makeGates(a), a.summary));
    expect(spec).toContain('point: observed rate');
    expect(spec).not.toContain('point: measured');
  });
});
