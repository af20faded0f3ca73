// The timing rule of a saturated machine (gates/verdict.ts timingVerdict, applied by gates/judge.ts) on exact inputs:
// a failing timing gate + saturated -> inconclusive (saturated), exit 2; + strict -> fail, exit 1; a correctness gate
// and a passing timing gate unaffected; a machine that is not saturated (or was not sampled) changes nothing.
import { describe, expect, it } from 'vitest';
import { summarizeMachineLoad } from '../../harness/analysis/machine-load.js';
import type { Summary } from '../../harness/analysis/summary.js';
import { evaluateGates, loadGates } from '../../harness/gates/evaluate.js';
import { applyTiming, judgement, verdictLine } from '../../harness/gates/judge.js';
import { isTimeMetric, METRICS } from '../../harness/gates/metrics.js';
import type { GateEvidence, GateResult } from '../../harness/gates/types.js';
import { exitCodeFor, reportVerdict, timingVerdict, verdictFacts } from '../../harness/gates/verdict.js';
import { fmtGateVerdict } from '../../harness/report/text/gate-format.js';
import { healthySamples, healthySummary, spread } from './fixtures.js';

/** 5 samples at load 5.5 on 2 cores (saturated), or at 0.4 (quiet). */
const SATURATED = summarizeMachineLoad(
  { load1: [5, 5.5, 6.1, 5.2, 5.9], stealPct: [0, 1, 0, 2, 0], otherCpuPct: [70, 71, 60, 65, 80] },
  2,
)!;
const QUIET = summarizeMachineLoad({ load1: [0.3, 0.4, 0.5], stealPct: [0, 0, 0], otherCpuPct: [2, 3, 4] }, 2)!;

/** The healthy summary with every downtime 2-3 s (gate 4, p95 < 1000 ms, fails solidly) and one checker violation if asked. */
function slowRun(violations = 0): { summary: Summary; evidence: GateEvidence } {
  const downtimeMs = spread(100, 2000, 3000);
  const s = healthySummary();
  const summary: Summary = {
    ...s,
    downtimeMs: { n: 100, min: 2000, p50: 2500, p90: 2900, p95: 2950, p99: 2990, max: 3000, mean: 2500 },
    violations,
    violationSamples: violations > 0 ? ['cycle 3: fs-memory-skew'] : [],
  };
  return { summary, evidence: { lostBeyondCheckpoint: 0, samples: { ...healthySamples(), downtimeMs } } };
}

function judged(summary: Summary, evidence: GateEvidence, machineLoad = SATURATED, strict = false) {
  const gates = evaluateGates(loadGates(), summary, evidence);
  const { gates: _g, ...run } = verdictFacts(summary, gates);
  return judgement(gates, run, { machineLoad, strict });
}

const byId = (gates: readonly GateResult[], id: number): GateResult => gates.find((g) => g.id === id)!;

describe('timingVerdict: the rule on exact inputs', () => {
  it('a failing timing gate on a saturated machine is inconclusive; strict keeps the fail', () => {
    expect(timingVerdict('fail', true, true, false)).toBe('inconclusive');
    expect(timingVerdict('fail', true, true, true)).toBe('fail');
  });
  it('a correctness gate, a passing timing gate and a quiet machine keep the measured verdict', () => {
    expect(timingVerdict('fail', false, true, false)).toBe('fail');
    expect(timingVerdict('pass', true, true, false)).toBe('pass');
    expect(timingVerdict('fail', true, false, false)).toBe('fail');
    expect(timingVerdict('insufficient', true, true, false)).toBe('insufficient');
    expect(timingVerdict('inconclusive', true, true, true)).toBe('inconclusive');
  });
  it('timing gates are the metrics METRICS gives a unit of time, and only those', () => {
    const timing = Object.keys(METRICS).filter(isTimeMetric).sort();
    expect(timing).toEqual(['bootMs', 'checkpointPauseMs', 'checkpointWriteMs', 'downtimeMs', 'restoreMs']);
    expect(isTimeMetric('nope')).toBe(false);
  });
});

describe('judgement of a slow run on a saturated machine', () => {
  it('gate 4 fails as measured and is reported inconclusive (saturated): verdict inconclusive, exit 2', () => {
    const { summary, evidence } = slowRun();
    const j = judged(summary, evidence);
    const g4 = byId(j.gates, 4);
    expect(g4).toMatchObject({ verdict: 'inconclusive', solid: false });
    expect(g4.saturated?.measured).toBe('fail');
    expect(g4.saturated?.reason).toBe(
      'saturated machine: load average p50 5.5 (max 6.1) on 2 cores, CPU steal p50 0% (max 2%), 5 samples; load p50 5.5 > 2 cores',
    );
    expect(fmtGateVerdict(g4)).toBe('inconclusive (saturated)');
    expect(applyTiming(j.gates, { machineLoad: SATURATED, strict: true }), 'judged gates are not judged again').toEqual(
      j.gates,
    );
    expect(g4.note).toContain('failed its bar on a saturated machine');
    expect(j.verdict).toBe('inconclusive');
    expect(exitCodeFor(j.verdict)).toBe(2);
    expect(j.timing).toMatchObject({ saturated: true, strict: false, failedTiming: [4] });
    expect(j.timing.load).toEqual({ load1P50: 5.5, stealPctP50: 0, cores: 2, samples: 5 });
    expect(j.timing.warning).toMatch(
      /Timing gate 4 \(Session resume latency p95\) failed its bar and is reported inconclusive \(saturated\)/,
    );
    expect(verdictLine(j)).toBe(
      'verdict: INCONCLUSIVE AT 95% (7 pass, 0 fail, 1 inconclusive (1 saturated), 0 insufficient of 8 gates; SATURATED machine: load p50 5.5 on 2 cores, CPU steal p50 0%: #4 inconclusive (saturated))',
    );
    const banner = reportVerdict(summary, j.gates);
    expect(banner.level).toBe('inconclusive');
    expect(banner.headline).toBe('INCONCLUSIVE AT 95%: 7 of 8 gates pass, 1 inconclusive (1 saturated)');
    expect(banner.detail).toMatch(
      /^Timing gate 4 \(Session resume latency p95\) failed its bar on a saturated machine \(saturated machine: load average p50 5\.5/,
    );
  });

  it('with strict timing the same run fails gate 4: verdict fail, exit 1, the warning kept', () => {
    const { summary, evidence } = slowRun();
    const j = judged(summary, evidence, SATURATED, true);
    expect(byId(j.gates, 4)).toMatchObject({ verdict: 'fail', solid: true, saturated: { measured: 'fail' } });
    expect(j.verdict).toBe('fail');
    expect(exitCodeFor(j.verdict)).toBe(1);
    expect(j.timing).toMatchObject({ saturated: true, strict: true, failedTiming: [4] });
    expect(verdictLine(j)).toMatch(
      /^verdict: FAIL \(.*failed: #4 resume-latency; SATURATED machine: load p50 5\.5 on 2 cores, CPU steal p50 0%: timing judged as measured \(--strict-timing\): #4 failed\)$/,
    );
    expect(reportVerdict(summary, j.gates).detail).toContain(
      'Timing gate 4 (Session resume latency p95) failed on a saturated machine (saturated machine: load average p50 5.5',
    );
  });

  it('a correctness gate is never affected: a checker violation still fails gate 2 and the run', () => {
    const { summary, evidence } = slowRun(1);
    const j = judged(summary, evidence);
    expect(byId(j.gates, 2)).toMatchObject({ verdict: 'fail' });
    expect(byId(j.gates, 2).saturated).toBeUndefined();
    expect(j.verdict).toBe('fail');
  });

  it('a passing timing gate stays a pass, marked as measured on the saturated machine', () => {
    const { summary, evidence } = slowRun();
    const j = judged(summary, evidence);
    expect(byId(j.gates, 1)).toMatchObject({ verdict: 'pass', saturated: { measured: 'pass' } });
    expect(fmtGateVerdict(byId(j.gates, 1))).toMatch(/^pass/);
    expect(byId(j.gates, 6).saturated, 'a rate is no timing gate').toBeUndefined();
  });

  it('negative control: a quiet or unsampled machine changes nothing; gate 4 fails, exit 1, no warning', () => {
    const { summary, evidence } = slowRun();
    for (const machineLoad of [QUIET, undefined]) {
      const j = judgement(evaluateGates(loadGates(), summary, evidence), verdictFacts(summary, []), {
        machineLoad,
        strict: false,
      });
      expect(byId(j.gates, 4)).toMatchObject({ verdict: 'fail' });
      expect(byId(j.gates, 4).saturated).toBeUndefined();
      expect(j.verdict).toBe('fail');
      expect(j.timing).toMatchObject({ saturated: false, failedTiming: [], warning: null });
      expect(verdictLine(j)).not.toContain('SATURATED');
    }
  });

  it('a saturated machine whose timing gates passed still warns, and changes no verdict', () => {
    const s = healthySummary();
    const j = judged(s, { lostBeyondCheckpoint: 0, samples: healthySamples() });
    expect(j.verdict).toBe('pass');
    expect(j.timing.failedTiming).toEqual([]);
    expect(j.timing.warning).toMatch(/^Measured on a saturated machine: .*No timing gate failed/);
    expect(verdictLine(j)).toMatch(
      /^verdict: PASS \(8 pass.*; SATURATED machine: load p50 5\.5 on 2 cores, CPU steal p50 0%: timing may reflect the machine\)$/,
    );
  });

  it('a timing gate whose bar is a lower bound keeps its fail: a busy machine makes times longer, never shorter', () => {
    const { summary, evidence } = slowRun();
    const measured = evaluateGates(loadGates(), summary, evidence).map((g) =>
      g.id === 4 ? { ...g, op: '>' as const, threshold: 'p50 > 5000', bound: 5000, verdict: 'fail' as const } : g,
    );
    const j = judgement(measured, verdictFacts(summary, []), { machineLoad: SATURATED, strict: false });
    expect(byId(j.gates, 4)).toMatchObject({ verdict: 'fail', saturated: { measured: 'fail' } });
    expect(j.timing.failedTiming).toEqual([]);
    expect(j.verdict).toBe('fail');
  });
});
