// Synthetic RunAnalysis and GateResult fixtures for report tests and the bench: deterministic, plausible numbers.
import type { Environment } from '../../harness/core/environment.js';
import type { KillPhase } from '../../harness/journal/events.js';
import type { GateResult } from '../../harness/gates/types.js';
import { summarize } from '../../harness/stats/distribution.js';
import { createRng } from '../../harness/stats/random.js';
import { wilson } from '../../harness/stats/wilson.js';
import { checkpointTable, cycleTable } from '../../harness/analysis/tables.js';
import type { CheckpointRow, CycleRow, RunAnalysis } from '../../harness/analysis/summary.js';
import { SUMMARY_SCHEMA_VERSION } from '../../harness/analysis/summary.js';

/** Knobs for a synthetic run. */
export interface FixtureOptions {
  cycles?: number;
  seed?: number;
  scenario?: string;
  target?: 'process' | 'microvm';
  date?: string;
  /** Cycles (1-based) that fail to resume. */
  failedCycles?: number[];
  /** Cycle (1-based) -> downtime in ms, replacing the drawn one (a spike); a failed cycle that never resumed keeps none. */
  downtimeOverrides?: ReadonlyMap<number, number>;
  /** Whether any kill lands during a restore. */
  restoreKills?: boolean;
  environment?: Partial<Environment>;
}

/** A plausible environment (no secrets, no env vars). */
export function fixtureEnvironment(target: 'process' | 'microvm', overrides: Partial<Environment> = {}): Environment {
  const facts: Environment['target'] =
    target === 'microvm'
      ? {
          accelerator: 'tcg',
          qemuVersion: '7.2.15 (Debian 1:7.2+dfsg-7+deb12u13)',
          imageHash: 'sha256:3f9a1c0e7b2d4a6f8e1c3b5d7f9a0c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f3a',
          guestMiB: 256,
        }
      : { agent: 'node agent.js', toolProcess: 'cat-tool' };
  return {
    os: 'Linux 6.1.0-40-cloud-amd64',
    arch: 'x64',
    cpuModel: 'AMD EPYC 7B13',
    cores: 2,
    memoryGiB: 7.8,
    kernel: '#1 SMP PREEMPT_DYNAMIC Debian 6.1.153-1 (2025-09-20)',
    node: 'v20.20.2',
    harnessVersion: '0.1.0',
    gitCommit: '0123456789abcdef0123456789abcdef01234567',
    target: facts,
    ...overrides,
  };
}

/** Build a synthetic analysis: downtimes ~100-300 ms (a few slower tails), ~3 checkpoints per cycle, store growth with dedup. */
export function makeAnalysis(options: FixtureOptions = {}): RunAnalysis {
  const n = options.cycles ?? 30;
  const rng = createRng(options.seed ?? 7);
  const failed = new Set(options.failedCycles ?? []);
  const cycles: CycleRow[] = [];
  const checkpoints: CheckpointRow[] = [];
  let step = 0;
  let seq = 0;
  let cumLogical = 0;
  let cumStored = 0;
  for (let c = 1; c <= n; c++) {
    const r = rng.next();
    const phase: KillPhase = r < 0.7 ? 'work' : r < 0.9 || !options.restoreKills ? 'checkpoint' : 'restore';
    const perCycle = 2 + rng.int(0, 2);
    let lastStep = step;
    for (let k = 0; k < perCycle; k++) {
      step += 5 + rng.int(0, 10);
      seq++;
      const logical = 4_000_000 + rng.int(0, 200_000);
      const stored = k === 0 && c === 1 ? logical : 60_000 + rng.int(0, 90_000);
      cumLogical += logical;
      cumStored += stored;
      lastStep = step;
      checkpoints.push({
        seq,
        pauseMs: 8 + rng.next() * 14,
        writeMs: 20 + rng.next() * 40,
        logicalBytes: logical,
        storedBytes: stored,
      });
    }
    const lost = rng.int(0, 9);
    const killStep = lastStep + lost;
    step = killStep;
    const tail = rng.next() < 0.05 ? 300 + rng.next() * 400 : 0;
    const drawn = Math.round((100 + rng.next() * 200 + tail) * 1000) / 1000; // drawn even when overridden: later cycles stay the same
    const downtime = options.downtimeOverrides?.get(c) ?? drawn;
    const isFailed = failed.has(c);
    cycles.push({
      cycle: c,
      phase,
      observedPhase: phase,
      outcome: isFailed ? 'fail' : 'ok',
      downtimeMs: isFailed && c % 2 === 0 ? null : downtime,
      killStep,
      restoredSeq: isFailed ? null : seq,
      restoredStep: isFailed ? null : lastStep,
      lostSteps: isFailed ? null : lost,
      restoreKills: phase === 'restore' ? 1 : 0,
      violations: isFailed ? 'memory digest at step 41 does not match filesystem at step 40' : '',
    });
  }
  const downtimes = cycles.flatMap((c) => (c.downtimeMs === null ? [] : [c.downtimeMs]));
  const ok = cycles.filter((c) => c.outcome === 'ok').length;
  const lost = cycles.flatMap((c) => (c.lostSteps === null ? [] : [c.lostSteps]));
  const torn = cycles.filter((c) => c.observedPhase === 'checkpoint');
  const lostSummary = summarize(lost);
  const target = options.target ?? 'process';
  return {
    summary: {
      schemaVersion: SUMMARY_SCHEMA_VERSION,
      runId: `run-${options.seed ?? 7}-${n}`,
      scenario: options.scenario ?? 'default-soak',
      target,
      date: options.date ?? '2025-06-01',
      startedAt: `${options.date ?? '2025-06-01'}T10:00:00.000Z`,
      seed: options.seed ?? 7,
      cycles: { total: n, resumed: ok, failed: n - ok, indeterminate: 0 },
      killResume: { successes: ok, trials: n, wilson95: wilson(ok, n) },
      downtimeMs: summarize(downtimes),
      bootMs: summarize([950, 1010, 980]),
      checkpointPauseMs: summarize(checkpoints.map((c) => c.pauseMs)),
      checkpointWriteMs: summarize(checkpoints.map((c) => c.writeMs)),
      restoreMs: summarize(downtimes.map((d) => d * 0.6)),
      lostSteps: { n: lostSummary.n, max: lostSummary.max, mean: lostSummary.mean },
      tornCheckpoint: { trials: torn.length, previousRestored: torn.filter((c) => c.outcome === 'ok').length },
      noncePreserved: { trials: ok, preserved: ok },
      dedup: {
        checkpoints: checkpoints.length,
        logicalBytes: cumLogical,
        storedBytes: cumStored,
        ratio: cumStored > 0 ? cumLogical / cumStored : null,
      },
      violations: cycles.filter((c) => c.violations !== '').length,
      violationSamples: cycles
        .filter((c) => c.violations !== '')
        .slice(0, 5)
        .map((c) => `cycle ${c.cycle}: ${c.violations}`),
      environment: fixtureEnvironment(target, options.environment),
    },
    cycles: cycleTable(cycles),
    checkpoints: checkpointTable(checkpoints),
    downtimes,
  };
}

/** Gates judged on an analysis: pass, fail and insufficient-data examples, two of them success-rate gates. */
export function makeGates(analysis: RunAnalysis): GateResult[] {
  const s = analysis.summary;
  const kr = s.killResume;
  const lo = kr.wilson95?.[0] ?? null;
  const torn = wilson(s.tornCheckpoint.previousRestored, s.tornCheckpoint.trials);
  return [
    {
      id: 1,
      name: 'kill-resume',
      title: 'Kill-and-resume success',
      metric: 'killResume.wilson95.lo',
      kind: 'rate',
      unit: '%',
      threshold: 'wilson95.lo >= 0.85',
      stat: { kind: 'wilson', level: 95, side: 'lo' },
      value: lo,
      interval: kr.wilson95,
      n: kr.trials,
      minN: 30,
      verdict: kr.trials < 30 ? 'insufficient' : (lo ?? 0) >= 0.85 ? 'pass' : 'fail',
      op: '>=',
      bound: 0.85,
      description: 'Kills that resumed and verified, judged on the Wilson 95% lower bound.',
      observed: kr.trials ? kr.successes / kr.trials : null,
      successes: kr.successes,
      judged: 'lower',
      solid: false,
      bounds: null,
      note: '',
    },
    {
      id: 2,
      name: 'downtime-p95',
      title: 'Downtime p95',
      metric: 'downtimeMs.p95',
      kind: 'distribution',
      unit: 'ms',
      threshold: 'p95 < 2000',
      stat: { kind: 'quantile', q: 0.95 },
      value: s.downtimeMs.p95,
      interval: null,
      n: s.downtimeMs.n,
      minN: 20,
      verdict: (s.downtimeMs.p95 ?? Infinity) < 2000 ? 'pass' : 'fail',
      op: '<',
      bound: 2000,
      description: '',
      observed: s.downtimeMs.p95,
      successes: null,
      judged: 'point',
      solid: false,
      bounds: null,
      note: '',
    },
    {
      id: 3,
      name: 'torn-checkpoint',
      title: 'Torn checkpoint falls back',
      metric: 'tornCheckpoint.rate',
      kind: 'rate',
      unit: '%',
      threshold: 'wilson95.lo >= 0.5',
      stat: { kind: 'wilson', level: 95, side: 'lo' },
      value: torn?.[0] ?? null,
      interval: torn,
      n: s.tornCheckpoint.trials,
      minN: 5,
      verdict: s.tornCheckpoint.trials >= 5 ? 'pass' : 'insufficient',
      op: '>=',
      bound: 0.5,
      description: '',
      observed: s.tornCheckpoint.trials ? s.tornCheckpoint.previousRestored / s.tornCheckpoint.trials : null,
      successes: s.tornCheckpoint.previousRestored,
      judged: 'lower',
      solid: false,
      bounds: null,
      note: '',
    },
    {
      id: 4,
      name: 'no-violations',
      title: 'No checker violations',
      metric: 'violations',
      kind: 'count',
      unit: 'violations',
      threshold: 'count == 0',
      stat: { kind: 'count' },
      value: s.violations,
      interval: null,
      n: s.cycles.total,
      minN: 1,
      verdict: s.violations === 0 ? 'pass' : 'fail',
      op: '==',
      bound: 0,
      description: '',
      observed: s.violations,
      successes: null,
      judged: 'point',
      solid: false,
      bounds: null,
      note: '',
    },
    {
      id: 5,
      name: 'resume-95',
      title: 'Resume success ≥ 95%',
      metric: 'killResume.wilson95.lo',
      kind: 'rate',
      unit: '%',
      threshold: 'wilson95.lo >= 0.95',
      stat: { kind: 'wilson', level: 95, side: 'lo' },
      value: lo,
      interval: kr.wilson95,
      n: kr.trials,
      minN: 73,
      verdict: kr.trials < 73 ? 'insufficient' : (lo ?? 0) >= 0.95 ? 'pass' : 'fail',
      op: '>=',
      bound: 0.95,
      description: '',
      observed: kr.trials ? kr.successes / kr.trials : null,
      successes: kr.successes,
      judged: 'lower',
      solid: false,
      bounds: null,
      note: 'n needed with zero failures: 73',
    },
  ];
}
