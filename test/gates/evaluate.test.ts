// Verdicts: a healthy summary passes every shipped gate; one broken field fails exactly its gate; too little data is insufficient.
import { describe, expect, it } from 'vitest';
import type { GateEvidence, GateResult, Threshold } from '../../harness/gates/types.js';
import { parseThreshold } from '../../harness/gates/threshold.js';
import { evaluateGates, loadGates, parseGate, quantileMinN } from '../../harness/gates/evaluate.js';
import { combineVerdicts } from '../../harness/gates/verdict.js';
import { downtimeQuantiles } from '../../harness/report/findings.js';
import type { RunAnalysis, Summary } from '../../harness/analysis/summary.js';
import { healthySamples, healthySummary, spread } from './fixtures.js';

const gates = loadGates();
const clean: GateEvidence = { lostBeyondCheckpoint: 0, samples: healthySamples() };

function verdicts(summary: Partial<Summary>, evidence: GateEvidence = clean): Record<number, string> {
  return Object.fromEntries(evaluateGates(gates, summary, evidence).map((r) => [r.id, r.verdict]));
}

function only(id: number, results: Record<number, string>, verdict: string): void {
  for (const [k, v] of Object.entries(results)) expect([k, v]).toEqual([k, Number(k) === id ? verdict : 'pass']);
}

/** Clean evidence whose `metric` samples are spread over [lo, hi]. */
function slow(metric: string, lo: number, hi: number, n = 100): GateEvidence {
  return { ...clean, samples: { ...healthySamples(), [metric]: spread(n, lo, hi) } };
}

describe('evaluateGates on the shipped gates', () => {
  it('passes a healthy run on every gate', () => {
    const results = evaluateGates(gates, healthySummary(), clean);
    expect(results.map((r) => r.verdict)).toEqual(Array(8).fill('pass'));
    expect(combineVerdicts(results.map((r) => r.verdict))).toBe('pass');
    expect(results[5]?.note).toMatch(/^n needed with zero failures: 73; 100\/100 trials ok/);
    expect(results[5]?.value).toBeCloseTo(100 / (100 + 1.959963984540054 ** 2), 12);
  });

  // Negative controls: one summary per gate that must fail it (and only it).
  const controls: Array<[number, (s: Summary) => void, GateEvidence?]> = [
    // a distribution gate fails (solid) when its raw samples put the whole 95% interval of p95 beyond the bar
    [1, (s) => void (s.bootMs = { ...s.bootMs, p95: 1000 }), slow('bootMs', 990, 1010)],
    [2, (s) => void (s.violations = 1)],
    [
      3,
      (s) => void (s.checkpointPauseMs = { ...s.checkpointPauseMs, p95: 50.5 }),
      slow('checkpointPauseMs', 50, 51, 350),
    ],
    [4, (s) => void (s.downtimeMs = { ...s.downtimeMs, p95: 1200 }), slow('downtimeMs', 1100, 1300)],
    [5, (s) => void (s.dedup = { ...s.dedup, ratio: 1.5 })],
    [6, (s) => void (s.killResume = { successes: 98, trials: 100, wilson95: null })], // 98/100: lower bound 0.9300
    [7, (s) => void (s.noncePreserved = { trials: 100, preserved: 99 })],
    [7, () => undefined, { ...clean, lostBeyondCheckpoint: 1 }],
    [7, () => undefined, { samples: healthySamples(), lostStepsPerCycle: [3, 19, 40], maxLostSteps: 22 }],
    [8, (s) => void (s.tornCheckpoint = { trials: 20, previousRestored: 19 })],
  ];
  it.each(controls)('fails gate %i when its number is broken', (id, breakIt, evidence) => {
    const s = healthySummary();
    breakIt(s);
    only(id, verdicts(s, evidence ?? clean), 'fail');
  });

  it('says insufficient below minN, never pass (72/72 is under gate 6 minN 73; 5 checked cycles under 30)', () => {
    const s = healthySummary();
    s.killResume = { successes: 72, trials: 72, wilson95: null };
    only(6, verdicts(s), 'insufficient');
    const r = evaluateGates(gates, s, clean)[5] as GateResult;
    expect(r.note).toMatch(/n needed with zero failures: 73/);
    const few = healthySummary();
    few.killResume = { successes: 5, trials: 5, wilson95: null };
    expect(verdicts(few)[2]).toBe('insufficient');
    expect(verdicts(few)[7]).toBe('insufficient');
  });

  it('fails a count gate already below minN: a violation in 5 cycles is final', () => {
    const s = healthySummary();
    s.killResume = { successes: 3, trials: 5, wilson95: null };
    s.violations = 2;
    expect(verdicts(s)[2]).toBe('fail');
  });

  it('treats missing data as insufficient, not a crash', () => {
    const s = healthySummary();
    s.tornCheckpoint = { trials: 0, previousRestored: 0 };
    s.dedup = { checkpoints: 0, logicalBytes: 0, storedBytes: 0, ratio: null };
    expect(verdicts(s)).toMatchObject({ 5: 'insufficient', 8: 'insufficient' });
    const partial: Partial<Summary> = healthySummary();
    delete partial.tornCheckpoint;
    delete partial.bootMs;
    expect(verdicts(partial)).toMatchObject({ 1: 'insufficient', 8: 'insufficient' });
    expect(verdicts({})).toEqual({
      1: 'insufficient',
      2: 'insufficient',
      3: 'insufficient',
      4: 'insufficient',
      5: 'insufficient',
      6: 'insufficient',
      7: 'insufficient',
      8: 'insufficient',
    });
  });

  it('gate 7 without loss evidence: insufficient on a clean run, fail on a lost nonce', () => {
    const samples = healthySamples();
    expect(verdicts(healthySummary(), { samples })[7]).toBe('insufficient');
    const s = healthySummary();
    s.noncePreserved = { trials: 100, preserved: 97 };
    expect(verdicts(s, { samples })[7]).toBe('fail');
    expect(verdicts(healthySummary(), { samples, maxLostSteps: 22 })[7]).toBe('pass'); // max lost 19 <= 22
    expect(verdicts(healthySummary(), { samples, maxLostSteps: 10 })[7]).toBe('fail'); // max lost 19 > 10: at least one cycle
  });

  it('gives a p95 the order-statistic interval the report gives it, none without raw samples or with too few', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 + 2 * ((i * 37) % 100));
    const a = evaluateGates(gates, healthySummary(), { ...clean, samples: { downtimeMs: samples } })[3] as GateResult;
    const report = downtimeQuantiles({ downtimes: samples } as unknown as RunAnalysis).find((e) => e.q === 0.95)!;
    expect(a.interval).toEqual([report.lo, report.hi]);
    expect(a.interval).toEqual([278, 298]); // ranks 90 and 100 of 100 (binomial, distribution-free)
    const bare = evaluateGates(gates, healthySummary(), { lostBeyondCheckpoint: 0 })[3] as GateResult;
    expect(bare.interval).toBeNull();
    expect(bare.note).toMatch(/raw samples not kept: the 95% interval of p95 over 100 samples is unknown/);
    expect(bare.verdict).toBe('inconclusive'); // a point with no interval to confirm it is not a pass
    // 30 samples cannot bound a p95 from above at 95%: no interval, and the note says how many would.
    const few = evaluateGates(gates, healthySummary(), {
      ...clean,
      samples: { downtimeMs: samples.slice(0, 30) },
    })[3] as GateResult;
    expect(few.interval).toBeNull();
    expect(few.note).toMatch(/30 samples cannot bound p95 above at 95% \(a two-sided interval needs n >= 72\)/);
  });
});

describe('metric kind and unit on each result', () => {
  it('come from the metrics table; a rate judged on failures counts its trials', () => {
    const results = evaluateGates(gates, healthySummary(), clean);
    expect(results.map((r) => [r.metric, r.kind, r.unit])).toEqual([
      ['bootMs', 'distribution', 'ms'],
      ['violations', 'count', 'violations'],
      ['checkpointPauseMs', 'distribution', 'ms'],
      ['downtimeMs', 'distribution', 'ms'],
      ['dedup', 'ratio', 'x'],
      ['killResume', 'rate', '%'],
      ['lossBeyondCheckpoint', 'count', 'cycles'],
      ['tornCheckpointUnsafe', 'count', 'torn-write kills'],
    ]);
    const problems: string[] = [];
    const failures = parseGate(
      'id: 9\ntitle: t\nmetric: killResume\nthreshold: failures == 0\nminN: 1\n',
      '09-failures.yaml',
      problems,
    );
    expect(problems).toEqual([]);
    if (failures === null) throw new Error('gate did not parse');
    expect(evaluateGates([failures], healthySummary())[0]).toMatchObject({ kind: 'rate', unit: 'trials', value: 0 });
  });
});

describe('gateEvidenceFromAnalysis', () => {
  it('takes raw samples and the lost steps of every cycle that restored (failed ones too), and the lost-step limit from the cadence', async () => {
    const { gateEvidenceFromAnalysis } = await import('../../harness/gates/evaluate.js');
    const { cycleTable, checkpointTable } = await import('../../harness/analysis/tables.js');
    const row = {
      phase: 'work',
      observedPhase: 'work',
      downtimeMs: 200,
      killStep: 50,
      restoredSeq: 2,
      restoredStep: 40,
      restoreKills: 0,
      violations: '',
    } as const;
    const cp = { seq: 1, logicalBytes: 10, storedBytes: 5 };
    const evidence = gateEvidenceFromAnalysis(
      {
        summary: healthySummary(),
        cycles: cycleTable([
          { ...row, cycle: 1, outcome: 'ok', lostSteps: 10 },
          { ...row, cycle: 2, outcome: 'fail', lostSteps: 99 },
          { ...row, cycle: 3, outcome: 'fail', lostSteps: null },
        ]),
        checkpoints: checkpointTable([
          { ...cp, pauseMs: 4, writeMs: 9 },
          { ...cp, pauseMs: 6, writeMs: 12 },
        ]),
        downtimes: [200, 210],
      },
      { stepMs: 5, checkpoint: { everyMs: 100 } },
    );
    expect(evidence.samples).toEqual({
      downtimeMs: [200, 210],
      checkpointPauseMs: Float64Array.of(4, 6),
      checkpointWriteMs: Float64Array.of(9, 12),
    });
    expect(evidence.lostStepsPerCycle).toEqual([10, 99]);
    expect(evidence.maxLostSteps).toBe(25); // ceil((100 + 6 + 12) / 5) + 1 = 24 + 1
  });
});

describe('point verdicts checked against their 95% bounds, and the minimum n of a quantile', () => {
  const [bootGate, , pauseGate] = gates;
  const summaryWith = (key: 'bootMs' | 'checkpointPauseMs', values: number[]): Partial<Summary> => {
    const sorted = [...values].sort((a, b) => a - b);
    const p95 = downtimeQuantiles({ downtimes: sorted } as unknown as RunAnalysis).find((e) => e.q === 0.95)!.value;
    return { [key]: { ...healthySummary()[key], n: values.length, p95 } };
  };

  it('a p95 whose bounds straddle the bar is inconclusive at 95%, not a pass (exit code 2)', () => {
    // 100 pauses: 94 fast and 6 around the 50 ms bar: the point is under it, the upper bound is not
    const values = [...spread(94, 2, 20), 45, 48, 49, 55, 60, 70];
    const r = evaluateGates([pauseGate!], summaryWith('checkpointPauseMs', values), {
      samples: { checkpointPauseMs: values },
    })[0]!;
    expect(r.value).toBeLessThan(50);
    expect(r.bounds![1]).toBeGreaterThan(50);
    expect(r).toMatchObject({ verdict: 'inconclusive', solid: false });
    expect(r.note).toContain('the point passes but its 95% bounds reach across the bar');
    expect(combineVerdicts(['pass', 'inconclusive', 'insufficient'])).toBe('inconclusive');
  });

  it('a fail whose bounds are wholly beyond the bar is solid; a pass inside it too', () => {
    const fast = spread(100, 2, 20);
    const pass = evaluateGates([pauseGate!], summaryWith('checkpointPauseMs', fast), {
      samples: { checkpointPauseMs: fast },
    })[0]!;
    expect(pass).toMatchObject({ verdict: 'pass', solid: true });
    const slowest = spread(100, 60, 90);
    const fail = evaluateGates([pauseGate!], summaryWith('checkpointPauseMs', slowest), {
      samples: { checkpointPauseMs: slowest },
    })[0]!;
    expect(fail).toMatchObject({ verdict: 'fail', solid: true });
  });

  it('no p95 is judged from fewer than 59 samples: gate 1 from one boot is insufficient, and says what is true', () => {
    const t = (source: string): Threshold => parseThreshold(source) as Threshold;
    expect(quantileMinN(t('p95 < 1000'))).toBe(59);
    expect(quantileMinN(t('p99 < 1000'))).toBe(299);
    expect(quantileMinN(t('mean < 1000'))).toBeNull();
    const oneBoot = { bootMs: { n: 1, min: 272, p50: 272, p90: 272, p95: 272, p99: 272, max: 272, mean: 272 } };
    const r = evaluateGates([bootGate!], oneBoot)[0]!;
    expect(r).toMatchObject({ verdict: 'insufficient', n: 1, minN: 59 });
    expect(r.note).not.toContain('no raw samples');
    expect(r.note).toContain('1 sample cannot bound p95 either side at 95% (a two-sided interval needs n >= 72)');
    // 58 fast pauses are still too few for a p95 even though gate 3's file says minN 30; 59 are enough
    const few = spread(58, 2, 20);
    const r58 = evaluateGates([pauseGate!], summaryWith('checkpointPauseMs', few), {
      samples: { checkpointPauseMs: few },
    })[0]!;
    expect(r58).toMatchObject({ verdict: 'insufficient', minN: 59 });
    expect(r58.note).toContain('p95 needs n >= 59');
    const fifteen = spread(15, 2, 20); // under the file's minN 30 too: the note names the n the table shows
    const r15 = evaluateGates([pauseGate!], summaryWith('checkpointPauseMs', fifteen), {
      samples: { checkpointPauseMs: fifteen },
    })[0]!;
    expect(r15).toMatchObject({ verdict: 'insufficient', minN: 59 });
    expect(r15.note).toMatch(/needs n >= 59$/);
    const enough = spread(59, 2, 20);
    const r59 = evaluateGates([pauseGate!], summaryWith('checkpointPauseMs', enough), {
      samples: { checkpointPauseMs: enough },
    })[0]!;
    expect(r59).toMatchObject({ verdict: 'pass', solid: true });
  });

  it('a success gate carries the observed rate and k/n beside the Wilson bound it is judged on', () => {
    const s = healthySummary();
    s.killResume = { successes: 80, trials: 80, wilson95: null };
    const r = evaluateGates(gates, s, clean)[5]!;
    expect(r).toMatchObject({ observed: 1, successes: 80, n: 80, judged: 'lower', op: '>=', bound: 0.95 });
    expect(r.value).toBeCloseTo(0.9542, 4);
    expect(r.description).toMatch(/Wilson 95% lower bound/);
  });
});
