// analyze() on a hand-made journal: exact counts, Wilson interval, type-7 downtime quantiles, lost work, dedup,
// torn-checkpoint and nonce tallies; duplicates counted once; several runs merged equal one run over the union.
import { describe, expect, it } from 'vitest';
import { cycleRows } from '../../harness/analysis/tables.js';
import { analyze } from '../../harness/analysis/analyze.js';
import { runningTotals } from '../../harness/analysis/columns.js';
import { InputError } from '../../harness/core/errors.js';
import type { CycleEvent, JournalEvent, KillPhase, Outcome, ViolationCode } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { runStartEvent, testEnvironment } from '../helpers/journal-events.js';

const scenario = parseScenario('name: hand\ncycles: 7\nseed: 9\n', 'hand.yaml');
const base = { schemaVersion: 1 as const, t: 0 };

const runStart = (runId: string): JournalEvent => runStartEvent(scenario, runId);
const start = (cycle: number): JournalEvent => ({ ...base, type: 'cycle-start', cycle, phase: 'work' });
const ckpt = (cycle: number, seq: number, stored: number): JournalEvent => ({
  ...base,
  type: 'checkpoint',
  cycle,
  seq,
  step: seq * 10,
  pauseMs: seq,
  writeMs: 2 * seq,
  logicalBytes: 1000,
  storedBytes: stored,
  chunks: 4,
  newChunks: 1,
  meta: {},
});
function cycle(
  id: number,
  outcome: Outcome,
  observedPhase: KillPhase,
  downtimeMs: number | null,
  lostSteps: number | null,
  codes: ViolationCode[] = [],
): CycleEvent {
  return {
    ...base,
    type: 'cycle',
    cycle: id,
    phase: observedPhase,
    observedPhase,
    outcome,
    downtimeMs,
    killStep: 50 + id,
    restoredSeq: lostSteps === null ? null : id,
    restoredStep: lostSteps === null ? null : 50 + id - lostSteps,
    lostSteps,
    restoreKills: 0,
    violations: codes.map((code) => ({ code, message: `${code} in cycle ${id}` })),
  };
}

/** Cycle bodies 1..6 (cycle-start + outcome), plus checkpoints, boot and restores. Cycle 7 starts and never finishes. */
const c = {
  1: cycle(1, 'ok', 'work', 100, 4),
  2: cycle(2, 'ok', 'checkpoint', 300, 10),
  3: cycle(3, 'fail', 'work', 250, 2, ['nonce']),
  4: cycle(4, 'ok', 'checkpoint', 200, 7),
  5: cycle(5, 'ok', 'work', 400, 1),
  6: cycle(6, 'fail', 'checkpoint', null, null, ['no-resume']),
};
const journal: JournalEvent[] = [
  runStart('run-a'),
  { ...base, type: 'boot', cycle: 1, bootMs: 300, nonce: 'n' },
  ckpt(1, 1, 1000),
  start(1),
  c[1],
  { ...base, type: 'restore', cycle: 1, seq: 1, step: 10, restoreMs: 50 },
  ckpt(2, 2, 100),
  start(2),
  c[2],
  { ...base, type: 'restore', cycle: 2, seq: 2, step: 20, restoreMs: 70 },
  start(3),
  c[3],
  ckpt(4, 3, 100),
  start(4),
  c[4],
  start(5),
  c[5],
  start(6),
  c[6],
  start(7),
];

describe('analyze', () => {
  const s = analyze(journal).summary;

  it('counts cycles: 6 finished (4 ok, 2 fail) and 1 started but unfinished (indeterminate)', () => {
    expect(s.cycles).toEqual({ total: 7, resumed: 4, failed: 2, indeterminate: 1 });
    expect(s.killResume.successes).toBe(4);
    expect(s.killResume.trials).toBe(6);
  });

  it('gives the Wilson 95% interval of 4/6 (published: [0.3000, 0.9032])', () => {
    const [lo, hi] = s.killResume.wilson95!;
    expect(lo).toBeCloseTo(0.299993, 6);
    expect(hi).toBeCloseTo(0.903229, 6);
  });

  it("summarises downtime over ok cycles only, with type-7 quantiles (the failed cycle's 250 ms is left out)", () => {
    // sorted 100 200 300 400: p50 h=1.5 -> 250; p90 h=2.7 -> 370; p95 h=2.85 -> 385; p99 h=2.97 -> 397.
    expect(s.downtimeMs).toEqual({ n: 4, min: 100, p50: 250, p90: 370, p95: 385, p99: 397, max: 400, mean: 250 });
    expect(analyze(journal).downtimes).toEqual([100, 300, 200, 400]);
  });

  it('lost steps over ok cycles: max 10, mean (4+10+7+1)/4 = 5.5', () => {
    expect(s.lostSteps).toEqual({ n: 4, max: 10, mean: 5.5 });
  });

  it('dedup: 3 checkpoints, 3000 logical / 1200 stored = 2.5, with per-checkpoint rows in journal order', () => {
    // no run-end recorded the store: the journal's figures
    expect(s.dedup).toEqual({
      checkpoints: 3,
      logicalBytes: 3000,
      storedBytes: 1200,
      ratio: 2.5,
      committed: 3,
      journaled: 3,
      counted: 'journal',
    });
    const rows = analyze(journal).checkpoints;
    expect(rows.length).toBe(3);
    expect([...rows.seq]).toEqual([1, 2, 3]);
    expect([...rows.pauseMs]).toEqual([1, 2, 3]);
    expect([...runningTotals(rows.logicalBytes)]).toEqual([1000, 2000, 3000]);
    expect([...runningTotals(rows.storedBytes)]).toEqual([1000, 1100, 1200]);
    expect(s.checkpointPauseMs.p50).toBe(2);
    expect(s.checkpointWriteMs.max).toBe(6);
  });

  it('torn checkpoints: 3 kills landed in a checkpoint write, 2 resumed from the previous one', () => {
    expect(s.tornCheckpoint).toEqual({ trials: 3, previousRestored: 2 });
  });

  it('nonce preserved: 5 cycles resumed at all (downtime measured), 4 kept the nonce', () => {
    expect(s.noncePreserved).toEqual({ trials: 5, preserved: 4 });
  });

  it('violations counted over finished cycles, with samples', () => {
    expect(s.violations).toBe(2);
    expect(s.violationSamples).toEqual(['nonce in cycle 3', 'no-resume in cycle 6']);
  });

  it('boot and restore timings, scenario facts, date from startedAt', () => {
    expect(s.bootMs.n).toBe(1);
    expect(s.bootMs.p50).toBe(300);
    expect(s.restoreMs).toMatchObject({ n: 2, p50: 60, max: 70 });
    expect([s.runId, s.scenario, s.target, s.seed, s.date, s.schemaVersion]).toEqual([
      'run-a',
      'hand',
      'process',
      9,
      '2026-03-04',
      1,
    ]);
    expect(s.environment).toEqual(testEnvironment);
  });

  it('cycle rows are in cycle order with violation codes joined', () => {
    const rows = cycleRows(analyze(journal).cycles);
    expect(rows.map((r) => r.cycle)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows[2]!.violations).toBe('nonce');
    expect(rows[5]).toMatchObject({ outcome: 'fail', downtimeMs: null, lostSteps: null, violations: 'no-resume' });
  });

  it('a cycle journaled twice (e.g. again after a runner resume) is counted once', () => {
    const twice = [...journal, c[2], c[1], start(3), c[3]];
    const a = analyze(twice);
    expect(a.summary).toEqual(s);
    expect([...a.cycles.cycle]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(cycleRows(a.cycles)).toEqual(cycleRows(analyze(journal).cycles));
  });

  it('the last outcome journaled for a cycle is the one counted', () => {
    const redone = analyze([...journal, cycle(7, 'ok', 'work', 500, 3)]).summary;
    expect(redone.cycles).toEqual({ total: 7, resumed: 5, failed: 2, indeterminate: 0 });
    // Cycle 3 failed with a nonce violation, then is journaled again as ok: only the second outcome counts.
    const fixed = analyze([...journal, cycle(3, 'ok', 'work', 150, 2)]);
    expect(fixed.summary.cycles).toEqual({ total: 7, resumed: 5, failed: 1, indeterminate: 1 });
    expect(fixed.summary.violationSamples).toEqual(['no-resume in cycle 6']);
    expect(fixed.summary.noncePreserved).toEqual({ trials: 5, preserved: 5 });
    expect(cycleRows(fixed.cycles)[2]).toMatchObject({ cycle: 3, outcome: 'ok', downtimeMs: 150, violations: '' });
  });

  it('a journal without run-start is bad input', () => {
    expect(() => analyze(journal.slice(1), 'x/journal.ndjson')).toThrow(InputError);
    expect(() => analyze(journal.slice(1), 'x/journal.ndjson')).toThrow(/x\/journal.ndjson has no run-start/);
  });

  it('an empty run has null statistics, not zeros', () => {
    const e = analyze([runStart('empty')]).summary;
    expect(e.cycles).toEqual({ total: 0, resumed: 0, failed: 0, indeterminate: 0 });
    expect(e.killResume.wilson95).toBeNull();
    expect(e.downtimeMs.p50).toBeNull();
    expect(e.lostSteps).toEqual({ n: 0, max: null, mean: null });
    expect(e.dedup.ratio).toBeNull();
  });
});

describe('analyze over several runs', () => {
  // The same six outcomes split across two runs (two shards); run B numbers its cycles from 1 again.
  const renumber = (e: CycleEvent, id: number): CycleEvent => ({ ...e, cycle: id });
  const runA: JournalEvent[] = [
    runStart('run-a'),
    { ...base, type: 'boot', cycle: 1, bootMs: 300, nonce: 'n' },
    ckpt(1, 1, 1000),
    start(1),
    c[1],
    { ...base, type: 'restore', cycle: 1, seq: 1, step: 10, restoreMs: 50 },
    ckpt(2, 2, 100),
    start(2),
    c[2],
    { ...base, type: 'restore', cycle: 2, seq: 2, step: 20, restoreMs: 70 },
    start(3),
    c[3],
  ];
  const runB: JournalEvent[] = [
    runStart('run-b'),
    ckpt(1, 3, 100),
    start(1),
    renumber(c[4], 1),
    start(2),
    renumber(c[5], 2),
    start(3),
    renumber(c[6], 3),
    start(4),
  ];

  it('equal one run over the union: counts, interval, quantiles, lost work, dedup, tallies', () => {
    const merged = analyze(runA, 'a', [{ events: runB, source: 'b' }]);
    expect(merged.summary).toEqual(analyze(journal).summary);
    expect(merged.cycles).toHaveLength(6);
    expect(merged.downtimes).toEqual([100, 300, 200, 400]);
  });

  it('negative control: pasting run B into run A (cycle ids collide) loses cycles, so the keying matters', () => {
    const pasted = analyze([...runA, ...runB]).summary;
    expect(pasted.killResume.trials).toBe(3);
    expect(analyze(runA, 'a', [{ events: runB, source: 'b' }]).summary.killResume.trials).toBe(6);
  });

  it('names the run without run-start', () => {
    expect(() => analyze(runA, 'a', [{ events: runB.slice(1), source: 'runs/b/journal.ndjson' }])).toThrow(
      /runs\/b\/journal.ndjson has no run-start/,
    );
  });
});
