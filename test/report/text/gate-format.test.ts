// A gate's value and interval are formatted in the unit its result declares, never guessed from the metric's name.
import { describe, expect, test } from 'vitest';
import { fmtGateInterval, fmtGateValue } from '../../../harness/report/text/gate-format.js';

describe('fmtGateValue and fmtGateInterval', () => {
  test('"%" is a proportion shown as a percentage, bounds rounded outward', () => {
    const g = { unit: '%', value: 0.9512, interval: [0.88649, 0.99991] as [number, number] };
    expect(fmtGateValue(g)).toBe('95.1%');
    expect(fmtGateInterval(g)).toBe('88.6%–100%');
  });
  test('"ms" is a duration', () => {
    const g = { unit: 'ms', value: 212.4, interval: [198, 1230] as [number, number] };
    expect(fmtGateValue(g)).toBe('212 ms');
    expect(fmtGateInterval(g)).toBe('198 ms–1,230 ms');
  });
  test('any other unit is a plain number, whatever the metric is called', () => {
    expect(fmtGateValue({ unit: 'x', value: 17.5 })).toBe('17.50');
    expect(fmtGateValue({ unit: 'violations', value: 1 })).toBe('1');
    expect(fmtGateValue({ unit: 'trials', value: 0.5 })).toBe('0.50');
    expect(fmtGateInterval({ unit: 'trials', interval: [0.5, 1] })).toBe('0.50–1');
  });
  test('nothing measured is n/a; no interval is a dash', () => {
    expect(fmtGateValue({ unit: '%', value: null })).toBe('n/a');
    expect(fmtGateValue({ unit: 'ms', value: null })).toBe('n/a');
    expect(fmtGateInterval({ unit: '%', interval: null })).toBe('–');
  });
});
