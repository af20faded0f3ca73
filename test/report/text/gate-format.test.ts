// A gate's figures are formatted in the unit its result declares, never guessed from the metric's name; every number
// says what it is (observed k/n, the interval, which end is judged, the bar's unit, the verdict word).
import { describe, expect, test } from 'vitest';
import {
  fmtGateInterval,
  fmtGateJudged,
  fmtGateObserved,
  fmtGateThreshold,
  fmtGateValue,
  fmtGateVerdict,
} from '../../../harness/report/text/gate-format.js';
import type { GateResult } from '../../../harness/gates/types.js';
import { wilson } from '../../../harness/stats/wilson.js';

describe('fmtGateValue and fmtGateInterval', () => {
  test('"%" is a proportion shown as a percentage, bounds rounded outward', () => {
    const g = { unit: '%', value: 0.9512, interval: [0.88649, 0.99991] as [number, number] };
    expect(fmtGateValue(g)).toBe('95.1%');
    expect(fmtGateInterval(g)).toBe('[88.6%, 100%]');
  });
  test('"ms" is a duration', () => {
    const g = { unit: 'ms', value: 212.4, interval: [198, 1230] as [number, number] };
    expect(fmtGateValue(g)).toBe('212 ms');
    expect(fmtGateInterval(g)).toBe('[198 ms, 1,230 ms]');
  });
  test('any other unit is a plain number, whatever the metric is called', () => {
    expect(fmtGateValue({ unit: 'x', value: 17.5 })).toBe('17.50');
    expect(fmtGateValue({ unit: 'violations', value: 1 })).toBe('1');
    expect(fmtGateValue({ unit: 'trials', value: 0.5 })).toBe('0.50');
    expect(fmtGateInterval({ unit: 'trials', interval: [0.5, 1] })).toBe('[0.50, 1]');
  });
  test('nothing measured is n/a; no interval is a dash', () => {
    expect(fmtGateValue({ unit: '%', value: null })).toBe('n/a');
    expect(fmtGateValue({ unit: 'ms', value: null })).toBe('n/a');
    expect(fmtGateInterval({ unit: '%', interval: null })).toBe('–');
  });
});

describe('a success gate: observed rate and n, then the interval, then the end that is judged', () => {
  const interval = wilson(80, 80)!;
  const g = {
    kind: 'rate' as const,
    unit: '%',
    value: interval[0],
    observed: 1,
    successes: 80,
    n: 80,
    interval,
    judged: 'lower' as const,
    bounds: null,
    op: '>=' as const,
    verdict: 'pass' as const,
  };
  test('80/80 is 100% observed with [95.4%, 100%], judged on the lower end (not "measured 95.4%")', () => {
    expect(fmtGateObserved(g)).toBe('100% (80/80)');
    expect(fmtGateInterval(g)).toBe('[95.4%, 100%]');
    expect(fmtGateJudged(g)).toBe('lower end, 95.4%');
  });
});

describe('distribution gates: the bar with its unit, the bound that confirms the point', () => {
  test('thresholds print with the unit of their bar', () => {
    const at = (stat: GateResult['stat'], op: GateResult['op'], bound: number, unit: string): string =>
      fmtGateThreshold({ stat, op, bound, unit });
    expect(at({ kind: 'quantile', q: 0.95 }, '<', 1000, 'ms')).toBe('p95 < 1000 ms');
    expect(at({ kind: 'quantile', q: 0.999 }, '<=', 1000, 'ms')).toBe('p99.9 <= 1000 ms');
    expect(at({ kind: 'wilson', level: 95, side: 'lo' }, '>=', 0.95, '%')).toBe('wilson95.lo >= 95%');
    expect(at({ kind: 'wilson', level: 99, side: 'hi' }, '<', 0.07, '%')).toBe('wilson99.hi < 7%');
    expect(at({ kind: 'failures' }, '<=', 2, 'trials')).toBe('failures <= 2 trials');
    expect(at({ kind: 'ratio' }, '>=', 2, 'x')).toBe('ratio >= 2x');
    expect(at({ kind: 'count' }, '==', 0, 'violations')).toBe('count == 0 violations');
  });
  const base = { kind: 'distribution' as const, unit: 'ms', judged: 'point' as const, op: '<' as const, value: 40 };
  test('a pass names its upper bound, a fail its lower bound, an open side says so', () => {
    expect(fmtGateJudged({ ...base, verdict: 'pass', bounds: [20, 45] })).toBe('point estimate; 95% bound ≤ 45.0 ms');
    expect(fmtGateJudged({ ...base, verdict: 'fail', bounds: [1139, null] })).toBe(
      'point estimate; 95% bound ≥ 1,139 ms',
    );
    expect(fmtGateJudged({ ...base, verdict: 'inconclusive', bounds: [20, null] })).toBe(
      'point estimate; no 95% bound above',
    );
  });
  test('verdict words: inconclusive is its own word; a solid verdict says so', () => {
    expect(fmtGateVerdict({ verdict: 'inconclusive', solid: false })).toBe('inconclusive at 95%');
    expect(fmtGateVerdict({ verdict: 'fail', solid: true })).toBe('fail, solid at 95%');
    expect(fmtGateVerdict({ verdict: 'insufficient', solid: false })).toBe('insufficient data');
  });
});
