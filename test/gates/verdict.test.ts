import { describe, expect, test } from 'vitest';
import type { GateResult } from '../../harness/gates/types.js';
import {
  combineVerdicts,
  exitCodeFor,
  reportVerdict,
  verdictLevel,
  verdictOfLevel,
  type VerdictFacts,
} from '../../harness/gates/verdict.js';
import { judgement, verdictLine } from '../../harness/gates/judge.js';
import { makeAnalysis, makeGates } from '../report/fixtures.js';

const summary = makeAnalysis().summary;
const gate = (id: number, verdict: GateResult['verdict']): GateResult => ({
  id,
  name: `g${id}`,
  title: `Gate ${id}`,
  metric: 'm',
  kind: 'count',
  unit: '',
  threshold: 'count == 0',
  stat: { kind: 'count' },
  op: '==',
  bound: 0,
  description: '',
  value: 1,
  observed: 1,
  successes: null,
  judged: 'point',
  interval: null,
  n: 1,
  minN: 1,
  verdict,
  solid: false,
  bounds: null,
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
  test('a failed run names what the runtime declared its checkpoint does not cover; a passing one does not', () => {
    const bad = makeAnalysis({ failedCycles: [3] }).summary;
    const target = { ...bad.environment.target, runtime: 'gVisor (runsc)', limitations: 'files are host-backed' };
    const withLimits = { ...bad, environment: { ...bad.environment, target } };
    expect(reportVerdict(withLimits, [gate(1, 'pass')]).detail).toContain(
      'The runtime (gVisor (runsc)) declares that its checkpoint does not cover this: files are host-backed.',
    );
    expect(reportVerdict(bad, [gate(1, 'pass')]).detail).not.toContain('declares');
    const good = { ...summary, environment: withLimits.environment };
    expect(reportVerdict(good, [gate(1, 'fail')]).detail).not.toContain('declares'); // no violation: not the cause
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

describe('combineVerdicts and exitCodeFor', () => {
  test('ranks fail over insufficient over pass; nothing to combine is insufficient', () => {
    expect(combineVerdicts(['pass', 'insufficient', 'fail'])).toBe('fail');
    expect(combineVerdicts(['pass', 'insufficient'])).toBe('insufficient');
    expect(combineVerdicts(['pass'])).toBe('pass');
    expect(combineVerdicts([])).toBe('insufficient');
  });
  test('maps pass 0, fail 1, insufficient 2; no gates judged is insufficient, not a pass', () => {
    expect([exitCodeFor('pass'), exitCodeFor('fail'), exitCodeFor('insufficient')]).toEqual([0, 1, 2]);
    expect(verdictOfLevel('none')).toBe('insufficient');
    expect(verdictOfLevel('pass')).toBe('pass');
  });
});

describe('verdictLevel: the lattice', () => {
  const facts = (over: Partial<VerdictFacts>): VerdictFacts => ({
    gates: [{ verdict: 'pass' }],
    violations: 0,
    negativeControl: false,
    trials: 10,
    ...over,
  });
  test('a normal run: gates combined, any checker violation fails it, no gates is none', () => {
    expect(verdictLevel(facts({}))).toBe('pass');
    expect(verdictLevel(facts({ gates: [{ verdict: 'pass' }, { verdict: 'insufficient' }] }))).toBe('insufficient');
    expect(verdictLevel(facts({ gates: [{ verdict: 'insufficient' }, { verdict: 'fail' }] }))).toBe('fail');
    expect(verdictLevel(facts({ violations: 1 }))).toBe('fail');
    expect(verdictLevel(facts({ gates: [{ verdict: 'insufficient' }], violations: 2 }))).toBe('fail');
    expect(verdictLevel(facts({ gates: [] }))).toBe('none');
    expect(verdictLevel(facts({ gates: [], violations: 1 }))).toBe('fail');
  });
  test('a negative control passes only when caught, whatever its gates say; 0 trials is insufficient', () => {
    const control = { negativeControl: true, gates: [{ verdict: 'fail' as const }] };
    expect(verdictLevel(facts({ ...control, violations: 3 }))).toBe('pass');
    expect(verdictLevel(facts({ ...control, violations: 0 }))).toBe('fail');
    expect(verdictLevel(facts({ ...control, violations: 0, trials: 0 }))).toBe('insufficient');
    expect(verdictLevel(facts({ ...control, violations: 0, trials: 0, gates: [] }))).toBe('insufficient');
  });
});

describe('verdictLine (the CLI line) from the lattice', () => {
  const gates = [gate(2, 'fail'), gate(4, 'pass'), gate(6, 'insufficient')];
  const facts = { violations: 0, negativeControl: false, trials: 6 };
  test('the lines printed today', () => {
    expect(verdictLine(judgement(gates, facts))).toBe(
      'verdict: FAIL (1 pass, 1 fail, 1 insufficient of 3 gates; failed: #2 g2)',
    );
    expect(verdictLine(judgement(gates.slice(1), facts))).toBe(
      'verdict: INSUFFICIENT DATA (1 pass, 0 fail, 1 insufficient of 2 gates)',
    );
    expect(verdictLine(judgement([gate(4, 'pass')], facts))).toBe(
      'verdict: PASS (1 pass, 0 fail, 0 insufficient of 1 gates)',
    );
    expect(verdictLine(judgement([], facts))).toBe(
      'verdict: INSUFFICIENT DATA (0 pass, 0 fail, 0 insufficient of 0 gates)',
    );
    const caught = judgement(gates, { ...facts, negativeControl: true, violations: 23, trials: 12 });
    expect(caught.verdict).toBe('pass');
    expect(verdictLine(caught)).toBe(
      'verdict: PASS (negative control: the checker caught the planted fault (23 violations in 12 cycles))',
    );
    const missed = judgement(gates, { ...facts, negativeControl: true });
    expect(verdictLine(missed)).toBe(
      'verdict: FAIL (negative control: the checker found NO violation in 6 cycles; it cannot be trusted to catch this fault)',
    );
  });
  test('checker violations fail a run whose gates all pass, as the report banner says', () => {
    const j = judgement([gate(4, 'pass')], { ...facts, violations: 1 });
    expect(j.verdict).toBe('fail');
    expect(exitCodeFor(j.verdict)).toBe(1);
    expect(verdictLine(j)).toBe(
      'verdict: FAIL (1 pass, 0 fail, 0 insufficient of 1 gates; the checker found 1 consistency violation)',
    );
    const bad = makeAnalysis({ failedCycles: [3] }).summary;
    expect(reportVerdict(bad, [gate(4, 'pass')]).level).toBe(j.verdict);
  });
});

describe('inconclusive in the one lattice', () => {
  test('fail > inconclusive > insufficient > pass; inconclusive exits 2 like insufficient data', () => {
    expect(combineVerdicts(['pass', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts(['insufficient', 'inconclusive'])).toBe('inconclusive');
    expect(combineVerdicts(['fail', 'inconclusive'])).toBe('fail');
    expect(exitCodeFor('inconclusive')).toBe(2);
    const banner = reportVerdict(summary, [gate(1, 'pass'), gate(2, 'inconclusive')]);
    expect(banner.level).toBe('inconclusive');
    expect(banner.headline).toBe('INCONCLUSIVE AT 95%: 1 of 2 gates pass, 1 inconclusive');
  });
});

describe('adapter faults in the one lattice (issue 30)', () => {
  const facts = (over: Partial<VerdictFacts>): VerdictFacts => ({
    gates: [{ verdict: 'pass' }],
    violations: 0,
    negativeControl: false,
    trials: 10,
    adapterFaults: 2,
    firstAdapterFault: 'adapter fault: adapter x.mjs (pid 7), request restore #2: exited (exit code 1, signal null)',
    ...over,
  });
  test('any adapter fault makes the level adapter-fault (exit 5), never a pass; checker violations still fail first', () => {
    expect(verdictLevel(facts({}))).toBe('adapter-fault');
    expect(verdictLevel(facts({ gates: [] }))).toBe('adapter-fault');
    expect(verdictLevel(facts({ gates: [{ verdict: 'fail' }] }))).toBe('adapter-fault');
    expect(verdictLevel(facts({ violations: 1 }))).toBe('fail');
    expect(verdictLevel(facts({ adapterFaults: 0 }))).toBe('pass'); // control: without faults, the gates decide
    // a negative control whose adapter faulted is not a caught control either
    expect(verdictLevel(facts({ negativeControl: true, violations: 3 }))).toBe('adapter-fault');
    expect(exitCodeFor(verdictOfLevel('adapter-fault'))).toBe(5);
  });
  test('the banner names the faults (count, first message) and lists the failed gates; the CLI line says it too', () => {
    const s = {
      ...summary,
      adapterFaults: { count: 2, samples: ['adapter fault: adapter x.mjs (pid 7), request restore #2: exited'] },
    };
    const v = reportVerdict(s, [gate(2, 'pass'), gate(6, 'fail')]);
    expect(v).toEqual({
      level: 'adapter-fault',
      headline: 'ADAPTER FAULT: 2 adapter faults, 1 of 2 gates failed',
      detail:
        'The exec adapter broke the target protocol, so this run cannot vouch for the runtime (never a pass); the first: adapter fault: adapter x.mjs (pid 7), request restore #2: exited. Failed: gate 6 (Gate 6).',
    });
    const j = judgement([gate(2, 'pass'), gate(6, 'fail')], facts({}));
    expect(j.verdict).toBe('adapter-fault');
    expect(verdictLine(j)).toBe(
      'verdict: ADAPTER FAULT (2 adapter faults, the first: adapter fault: adapter x.mjs (pid 7), request restore #2: exited (exit code 1, signal null); 1 pass, 1 fail, 0 insufficient of 2 gates)',
    );
  });
});
