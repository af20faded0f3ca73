// JUnit XML of a judged run: well-formed (read back by a real XML parser), one testcase per gate, a failure message
// with the measured value, interval and threshold in units; hostile text and control characters escaped.
import { describe, expect, it } from 'vitest';
import { escapeXml } from '../../../harness/report/escape.js';
import { renderJunit } from '../../../harness/report/text/junit.js';
import { timingJudgement } from '../../../harness/gates/judge.js';
import { makeAnalysis, makeGates } from '../fixtures.js';
import { parseJunit } from '../../helpers/xml.js';
import { saturatedRun } from './saturated-fixture.js';

const analysis = makeAnalysis({ cycles: 40, failedCycles: [2, 5, 8, 13, 21, 34] });
const gates = makeGates(analysis);
const timing = timingJudgement(gates, { machineLoad: undefined, strict: false });
const xml = (g = gates): string =>
  renderJunit({ summary: analysis.summary, gates: g, verdict: 'fail', reportDir: '/r/2026-12-01-default', timing });

describe('renderJunit', () => {
  it('writes one testcase per gate; a failed gate carries its figures in units', () => {
    const j = parseJunit(xml());
    expect(j.tests).toBe(gates.length);
    expect(j.cases).toHaveLength(gates.length);
    expect(j.failures).toBe(gates.filter((g) => g.verdict === 'fail').length);
    expect(j.skipped).toBe(gates.filter((g) => g.verdict === 'insufficient' || g.verdict === 'inconclusive').length);
    const rate = j.cases.find((c) => c.name.includes('Kill-and-resume success'));
    expect(rate?.failure).toBe(
      'fail: measured 85% (34/40), 95% interval [70.9%, 93%], judged on lower end, 70.9%, threshold wilson95.lo >= 85%, n 40 (min 30)',
    );
    expect(j.properties).toMatchObject({ verdict: 'fail', reportDir: '/r/2026-12-01-default', cycles: '40' });
  });

  it('escapes markup, quotes, newlines and characters XML cannot hold', () => {
    const hostile = gates.map((g, i) =>
      i === 0 ? { ...g, title: `a <b> & "c" 'd'\u0001\u001b[31m\nline2`, verdict: 'fail' as const } : g,
    );
    const j = parseJunit(xml(hostile));
    expect(j.cases[0]!.name).toBe(`gate 01 kill-resume: a <b> & "c" 'd'[U+0001][U+001B][31m\nline2`);
    expect(escapeXml('\uD800x\uFFFE')).toBe('[U+D800]x[U+FFFE]');
  });

  it('a run with adapter faults gets one <error> testcase naming them (escaped), besides its gates', () => {
    const faults = {
      count: 2,
      samples: ['adapter fault: adapter <x>.mjs: "garbage \u001b[31m"', 'adapter fault: second'],
    };
    const j = parseJunit(
      renderJunit({
        summary: { ...analysis.summary, adapterFaults: faults },
        gates,
        verdict: 'adapter-fault',
        reportDir: null,
        timing,
      }),
    );
    expect(j.tests).toBe(gates.length + 1);
    expect(j.errors).toBe(1);
    expect(j.properties['verdict']).toBe('adapter-fault');
    const c = j.cases.find((x) => x.error !== null);
    expect(c?.name).toBe('exec adapter keeps the target protocol');
    expect(c?.error).toBe('2 adapter faults; the first: adapter fault: adapter <x>.mjs: "garbage [U+001B][31m"');
    expect(parseJunit(xml()).errors, 'none without faults').toBe(0);
  });

  it("gives the suite the run's span as its time, and each gate testcase 0 (a gate has no duration of its own)", () => {
    const timed = parseJunit(
      renderJunit({
        summary: { ...analysis.summary, elapsedMs: 83_456.7 },
        gates,
        verdict: 'fail',
        reportDir: null,
        timing,
      }),
    );
    expect(timed.time).toBe('83.457');
    expect(new Set(timed.cases.map((c) => c.time))).toEqual(new Set(['0']));
    const { elapsedMs: _none, ...untimed } = analysis.summary;
    expect(parseJunit(renderJunit({ summary: untimed, gates, verdict: 'fail', reportDir: null, timing })).time).toBe(
      '0.000',
    );
  });

  it('the parser rejects what is not well-formed (so the checks above can fail)', () => {
    const withAmp = xml(gates.map((g, i) => (i === 0 ? { ...g, title: 'R&D' } : g)));
    expect(() => parseJunit(withAmp)).not.toThrow();
    expect(() => parseJunit(withAmp.replace('R&amp;D', 'R&D'))).toThrow(/well-formed/);
    expect(() => parseJunit('<testsuites><testsuite name="a & b"></testsuite></testsuites>')).toThrow(/well-formed/);
    expect(() => parseJunit(`<testsuites name="\u0001"/>`)).toThrow(/well-formed/);
  });
});

describe('renderJunit on a saturated machine', () => {
  const figures = 'load average p50 5.5 (max 6.1) on 2 cores, CPU steal p50 1% (max 2%), 3 samples';

  it('a timing gate that failed is <skipped> "inconclusive (saturated)" with the load, steal and cores; the suite says so', () => {
    const { analysis: a, gates: g, timing: t } = saturatedRun(false);
    const j = parseJunit(
      renderJunit({ summary: a.summary, gates: g, verdict: 'inconclusive', reportDir: null, timing: t }),
    );
    const c = j.cases.find((x) => x.name.includes('Downtime p95'))!;
    expect(c.failure).toBeNull();
    expect(c.skipped).toMatch(
      /^inconclusive \(saturated\): measured .*; measured on a saturated machine: load average p50 5\.5/,
    );
    expect(c.skipped).toContain(figures);
    expect(j.failures).toBe(g.filter((x) => x.verdict === 'fail').length);
    expect(j.properties).toMatchObject({
      machineSaturated: 'true',
      load1P50: '5.5',
      stealPctP50: '1',
      cores: '2',
      strictTiming: 'false',
    });
    expect(j.systemOut).toMatch(
      /^warning: Measured on a saturated machine: load average p50 5\.5 .*reported inconclusive \(saturated\)/,
    );
  });

  it('with strict timing the gate is a <failure> whose message still names the saturated machine', () => {
    const { analysis: a, gates: g, timing: t } = saturatedRun(true);
    const j = parseJunit(renderJunit({ summary: a.summary, gates: g, verdict: 'fail', reportDir: null, timing: t }));
    const c = j.cases.find((x) => x.name.includes('Downtime p95'))!;
    expect(c.failure).toMatch(/^fail: .*judged as measured \(--strict-timing\); measured on a saturated machine: /);
    expect(j.properties['strictTiming']).toBe('true');
    expect(j.systemOut).toContain('judged as measured (--strict-timing)');
  });

  it('negative control: a quiet run has no warning and says machineSaturated false', () => {
    const j = parseJunit(xml());
    expect(j.properties['machineSaturated']).toBe('false');
    expect(j.systemOut).toBeNull();
    expect(j.cases.every((c) => !(c.skipped ?? '').includes('saturated'))).toBe(true);
  });
});
