// The job summary for $GITHUB_STEP_SUMMARY: verdict, n and intervals, the gate table, the report's path; data strings
// escaped; never over its byte cap.
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../../harness/report/model.js';
import { renderStepSummary, STEP_SUMMARY_MAX_BYTES } from '../../../harness/report/text/step-summary.js';
import { makeAnalysis, makeGates } from '../fixtures.js';
import { saturatedRun } from './saturated-fixture.js';

const analysis = makeAnalysis({ cycles: 40, failedCycles: [2, 5, 8, 13, 21, 34] });
const gates = makeGates(analysis);

describe('renderStepSummary', () => {
  it('states the verdict, n and intervals, every gate and where the report is', () => {
    const md = renderStepSummary(buildModel(analysis, gates), '/reports/2026-12-01-default');
    expect(md).toMatch(/^## ❌ keepstate-soak: .+: FAIL: \d+ of \d+ gates failed$/m);
    expect(md).toContain('Kill-and-resume succeeded in 34 of 40 cycles (Wilson 95%: 70.9%–93%)');
    expect(md).toMatch(
      /^\| ❌ \| 1 \| Kill-and-resume success \| wilson95\.lo \\>= 85% \| 85% \(34\/40\) \| \\\[70\.9%, 93%\\\] \| lower end, 70\.9% \| 40 \(30\) \| \*\*fail\*\* \|$/m,
    );
    expect(md.match(/^\| (✅|❌|⚠️) \| \d+ \|/gm)).toHaveLength(gates.length);
    expect(md).toContain('Dated report: `/reports/2026-12-01-default`');
  });

  it('escapes what comes from config or the journal', () => {
    const hostile = makeAnalysis({ cycles: 5, scenario: 'x | <img src=y> **z**' });
    const md = renderStepSummary(buildModel(hostile, makeGates(hostile)), null);
    expect(md).not.toContain('<img');
    expect(md).toContain('x \\| &lt;img src=y\\> \\*\\*z\\*\\*');
    expect(md).toContain('No report was written.');
  });

  it('stays under its cap however many findings there are', () => {
    const model = buildModel(analysis, gates);
    const huge = { ...model, findings: Array.from({ length: 20_000 }, (_, i) => `finding ${i} ${'x'.repeat(60)}`) };
    const md = renderStepSummary(huge, null);
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(STEP_SUMMARY_MAX_BYTES);
    expect(md).toMatch(/summary cut to fit the job summary/);
    expect(Buffer.byteLength(renderStepSummary(model, null))).toBeLessThan(20_000);
  });

  it('on a saturated machine: a warning with the load, steal and cores above the table; the gate inconclusive (saturated)', () => {
    const { analysis: a, gates: g, timing: t } = saturatedRun(false);
    const md = renderStepSummary(buildModel(a, g, undefined, t), null);
    const lines = md.split('\n');
    const at = lines.indexOf('> [!WARNING]');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(lines.indexOf('### Gates'));
    expect(lines[at + 1]).toMatch(
      /^> \*\*Measured on a saturated machine: load average p50 5\.5 \(max 6\.1\) on 2 cores, CPU steal p50 1% \(max 2%\), 3 samples; load p50 5\.5 \\> 2 cores\. Timing gate 2 \(Downtime p95\) failed its bar and is reported inconclusive \(saturated\)/,
    );
    expect(md).toMatch(/^\| ⚠️ \| 2 \| Downtime p95 \|.*\| inconclusive \(saturated\) \|$/m);
    expect(md).toMatch(/INCONCLUSIVE AT 95%: .* \(1 saturated\)/);
  });

  it('negative control: a quiet run has no warning', () => {
    expect(renderStepSummary(buildModel(analysis, gates), null)).not.toContain('[!WARNING]');
  });
});
