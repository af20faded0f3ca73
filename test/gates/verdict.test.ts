import { describe, expect, test } from 'vitest';
import type { GateResult } from '../../harness/gates/types.js';
import { reportVerdict } from '../../harness/gates/verdict.js';
import { makeAnalysis, makeGates } from '../report/fixtures.js';

const summary = makeAnalysis().summary;
const gate = (id: number, verdict: GateResult['verdict']): GateResult => ({
  id,
  name: `g${id}`,
  title: `Gate ${id}`,
  metric: 'm',
  threshold: 't',
  value: 1,
  interval: null,
  n: 1,
  minN: 1,
  verdict,
  note: '',
});

describe('reportVerdict', () => {
  test('fail outranks insufficient outranks pass', () => {
    expect(reportVerdict(summary, [gate(1, 'pass'), gate(2, 'insufficient'), gate(3, 'fail')]).level).toBe('fail');
    expect(reportVerdict(summary, [gate(1, 'pass'), gate(2, 'insufficient')]).level).toBe('insufficient');
    expect(reportVerdict(summary, [gate(1, 'pass'), gate(2, 'pass')])).toMatchObject({
      level: 'pass',
      headline: 'PASS: all 2 gates pass',
    });
    expect(reportVerdict(summary, []).level).toBe('none');
  });
  test('checker violations fail the run even when every gate passes', () => {
    const bad = makeAnalysis({ failedCycles: [3] }).summary;
    const v = reportVerdict(bad, [gate(1, 'pass')]);
    expect(v.level).toBe('fail');
    expect(v.detail).toContain('1 consistency violation');
  });
  test('the fixture gates give an insufficient-data verdict naming gate 5', () => {
    const a = makeAnalysis();
    const v = reportVerdict(a.summary, makeGates(a));
    expect(v.level).toBe('insufficient');
    expect(v.detail).toContain('5 (Resume success ≥ 95%)');
  });
});

describe('reportVerdict on a negative-control run', () => {
  test('passes only when the checker caught the planted fault, and fails loudly when it did not', () => {
    const a = makeAnalysis({ cycles: 10 });
    const gates = makeGates(a);
    const caught = reportVerdict({ ...a.summary, negativeControl: true, violations: 4 }, gates);
    expect(caught.level).toBe('pass');
    expect(caught.headline).toMatch(/caught/);
    const missed = reportVerdict({ ...a.summary, negativeControl: true, violations: 0 }, gates);
    expect(missed.level).toBe('fail');
    expect(missed.headline).toMatch(/NOT caught/);
  });
});
