import { describe, expect, test } from 'vitest';
import { buildModel } from '../../../harness/report/model.js';
import { renderWalkthrough } from '../../../harness/report/text/walkthrough.js';
import { makeAnalysis, makeGates } from '../fixtures.js';
import { storyRun } from '../story-fixtures.js';

function walkthrough(options: Parameters<typeof makeAnalysis>[0] = {}): string {
  const a = makeAnalysis(options);
  return renderWalkthrough(buildModel(a, makeGates(a)), [{ name: 'downtime-ecdf', title: 'Downtime ECDF' }]);
}

describe('summary.md walkthrough', () => {
  const md = walkthrough({ target: 'microvm' });

  test('states date, scenario, target and n up front', () => {
    expect(md).toContain('# Soak report: default-soak, 2025-06-01');
    expect(md).toContain('| 2025-06-01 | default-soak | microvm | 30 | 7 | run-7-30 |');
  });
  test('every rate claim is an interval with n', () => {
    expect(md).toContain('Kill-and-resume succeeded in 30 of 30 cycles (Wilson 95%: 88.6%–100%).');
    expect(md).toMatch(/Downtime from kill to first verified heartbeat, n = 30: p50 \d+ ms \(95% CI \d+ ms–\d+ ms\)/);
    expect(md).toMatch(/\| p50 \| \d+ ms \| \d+ ms – \d+ ms \| 30 \|/);
  });
  test('gate table: observed rate with k/n, the Wilson interval, which end is judged, thresholds with units', () => {
    expect(md).toContain(
      '| 1 | Kill-and-resume success | wilson95.lo \\>= 85% | 100% (30/30) | \\[88.6%, 100%\\] | lower end, 88.6% | 30 (30) | pass |',
    );
    expect(md).toContain(
      '| 5 | Resume success ≥ 95% | wilson95.lo \\>= 95% | 100% (30/30) | \\[88.6%, 100%\\] | lower end, 88.6% | 30 (73) | *insufficient data* | n needed with zero failures: 73 |',
    );
    expect(md).toContain('| 2 | Downtime p95 | p95 &lt; 2000 ms |');
  });
  test('gate descriptions and the judging rules (minimum n for a p95) are in the walkthrough', () => {
    expect(md).toContain('### What each gate checks');
    expect(md).toContain(
      '- **1. Kill-and-resume success**: Kills that resumed and verified, judged on the Wilson 95% lower bound.',
    );
    expect(md).toContain('### How the gates are judged');
    expect(md).toContain('p95 needs n \\>= 59');
  });
  test('bidirectional control characters are neutralised', () => {
    const md3 = walkthrough({ scenario: 'nightly\u202Egnp.exe' });
    expect(md3).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/);
    expect(md3).toContain('nightly\\[U+202E\\]gnp.exe');
  });
  test('tested environment: CPU, kernel, accelerator, QEMU, image hash, harness version, commit', () => {
    for (const label of [
      'Host CPU | AMD EPYC 7B13 (2 cores, x64)',
      'Kernel |',
      'Accelerator | tcg',
      'QEMU version | 7.2.15',
      'Guest image hash | sha256:3f9a',
      'Harness version | 0.1.0',
      'Git commit | 0123456789abcdef',
    ]) {
      expect(md).toContain(`| ${label}`);
    }
  });
  test('durability limits with lost steps, provider-side state out of scope', () => {
    expect(md).toMatch(/at most \d+ steps per kill \(mean \d+\.\d+, n = 30\)/);
    expect(md).toContain('Provider-side state');
    expect(md).toContain('out of scope');
  });
  test('scope and limitations written from the data', () => {
    expect(md).toContain('Measured once, on one workload');
    expect(md).toContain('A single demonstration is not a recovery-time guarantee');
    expect(md).toContain('No kill landed during a restore');
    expect(md).toContain('No cross-region number');
    expect(md).toContain('KVM was not used (accelerator: tcg)');
    expect(md).toContain('at least 73 failure-free cycles are needed to claim 95% or better');
    expect(md).toContain('Gate 5 (Resume success ≥ 95%) had n = 30, below its minimum of 73');
  });
  test('limitations that do not apply are left out', () => {
    const kvm = walkthrough({
      target: 'microvm',
      restoreKills: true,
      cycles: 200,
      environment: { target: { accelerator: 'kvm' } },
    });
    expect(kvm).not.toContain('No kill landed during a restore');
    expect(kvm).not.toContain('KVM was not used');
    expect(kvm).not.toContain('failure-free cycles are needed');
    expect(walkthrough({ target: 'process' })).toContain('no micro-VM was measured');
  });
  test('failures are counted and shown with their interval', () => {
    const md2 = walkthrough({ cycles: 40, failedCycles: [3, 8] });
    expect(md2).toContain('Kill-and-resume succeeded in 38 of 40 cycles (Wilson 95%: 83.4%–98.7%).');
    expect(md2).toContain('Checker violations: 2 in 40 cycles');
    expect(md2).toContain('**FAIL');
  });
  test('names from config are Markdown-escaped', () => {
    const hostile = walkthrough({ scenario: 'x <script>alert(1)</script> | *y*' });
    expect(hostile).not.toContain('<script>');
    expect(hostile).toContain('x &lt;script\\>alert(1)&lt;/script\\> \\| \\*y\\*');
  });
});

describe('summary.md leads with the story, as the first screen does', () => {
  const fail = storyRun('fail');
  const md = renderWalkthrough(buildModel(fail.analysis, fail.gates), []);
  const at = (s: string): number => md.indexOf(s);

  test('verdict, then the gates that did not pass, then what to do next, before anything else', () => {
    expect(at('**FAIL: 4 of 8 gates failed.**')).toBeGreaterThan(0);
    expect(at('**FAIL: 4 of 8 gates failed.**')).toBeLessThan(at('## Did not pass'));
    expect(at('## Did not pass')).toBeLessThan(at('## What to do next'));
    expect(at('## What to do next')).toBeLessThan(at('## What was measured'));
  });
  test("each gate that did not pass with its value, interval, judged figure, bar and n: the gate table's own cells", () => {
    const story = md.slice(at('## Did not pass'), at('## What to do next'));
    const rows = story.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(['| 2', '| 4', '| 6', '| 8']);
    expect(rows[2]).toBe(
      '| 6 | Kill-and-resume success | wilson95.lo \\>= 95% | 96.3% (77/80) | \\[89.5%, 98.8%\\] | lower end, 89.5% | 80 (73) | **fail** |',
    );
    const table = md.slice(at('## Gates'));
    expect(table).toContain(
      rows[2]!.replace(' | **fail** |', ' | **fail** | n needed with zero failures: 73; 77/80 trials ok |'),
    );
  });
  test('what to do next: numbered, commands as code', () => {
    expect(md).toContain('4. Re-run the checker over the journaled observations: `soak check runs/run-5-80` (exit 1');
  });
  test('a passing run tells no gate, only what to do next', () => {
    const pass = storyRun('pass');
    const passing = renderWalkthrough(buildModel(pass.analysis, pass.gates), []);
    expect(passing).not.toContain('## Did not pass');
    expect(passing).toContain('## What to do next\n\n1. Nothing blocks sign-off on these 8 gates.');
  });
  test('a run id a code span cannot hold is escaped text, not code', () => {
    const a = { ...fail.analysis, summary: { ...fail.analysis.summary, runId: 'x`y <b>' } };
    const hostile = renderWalkthrough(buildModel(a, fail.gates), []);
    expect(hostile).toContain('soak check runs/x\\`y &lt;b\\>');
    expect(hostile).not.toContain('<b>');
  });
});
