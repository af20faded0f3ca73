// The merge plan (pure): shards keep their ids, overlapping runs are shifted apart, the merged run-start counts the
// cycles, a source without run-start is named, and a source with a million cycle ids is planned (no argument spread).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import type { JournalEvent, RunStartEvent } from '../../harness/journal/events.js';
import { mergeEvent, mergeJournals, planMerge } from '../../harness/journal/merge.js';

/** A run-start; unsharded runs get a seed of their own (one seed twice is the same kill plan: merge refuses it). */
function start(runId: string, cycles: number, shard?: { index: number; count: number }): RunStartEvent {
  return {
    schemaVersion: 1,
    t: 0,
    type: 'run-start',
    runId,
    startedAt: '2026-12-01T00:00:00.000Z',
    scenario: { name: 'x', cycles, seed: shard ? 4 : seedOf(runId) } as RunStartEvent['scenario'],
    environment: { cpuModel: 'AMD EPYC', cores: 2, kernel: '6.1.0', os: 'Linux 6.1.0' } as RunStartEvent['environment'],
    ...(shard ? { shard } : {}),
  };
}
const seedOf = (runId: string): number => {
  let h = 7;
  for (let i = 0; i < runId.length; i++) h = (h * 31 + runId.charCodeAt(i)) % 100_000;
  return h;
};
const ids = (from: number, to: number, step = 1): Set<number> => {
  const s = new Set<number>();
  for (let i = from; i <= to; i += step) s.add(i);
  return s;
};

describe('planMerge', () => {
  it('keeps disjoint shard ids, counts the soak once, and drops the shard field', () => {
    const plan = planMerge(
      [
        { start: start('a', 8, { index: 0, count: 2 }), cycleIds: ids(1, 7, 2), source: 'a' },
        { start: start('b', 8, { index: 1, count: 2 }), cycleIds: ids(2, 8, 2), source: 'b' },
      ],
      'merged',
    );
    expect(plan.shifts).toEqual([0, 0]);
    expect(plan.start).toMatchObject({ runId: 'merged', mergedFrom: ['a', 'b'], scenario: { cycles: 8 } });
    expect(plan.start.shard).toBeUndefined();
    const machine = 'AMD EPYC, 2 cores, kernel 6.1.0 (#' + plan.start.sources![0]!.machine.slice(-9);
    expect(plan.start.sources).toEqual([
      {
        runId: 'a',
        machine,
        seed: 4,
        shard: { index: 0, count: 2 },
        plannedCycles: 4,
        cycles: 4,
        firstCycle: 1,
        lastCycle: 7,
        status: 'unknown',
      },
      {
        runId: 'b',
        machine,
        seed: 4,
        shard: { index: 1, count: 2 },
        plannedCycles: 4,
        cycles: 4,
        firstCycle: 2,
        lastCycle: 8,
        status: 'unknown',
      },
    ]);
    expect(machine).toMatch(/ \(#[0-9a-f]{8}\)$/);
  });

  it('judges the union as stopped when decided when any shard was (its length depended on the data)', () => {
    const decided = start('b', 8, { index: 1, count: 2 });
    decided.scenario = { ...decided.scenario, untilDecided: true };
    const plan = (second: RunStartEvent) =>
      planMerge(
        [
          { start: start('a', 8, { index: 0, count: 2 }), cycleIds: ids(1, 7, 2), source: 'a' },
          { start: second, cycleIds: ids(2, 8, 2), source: 'b' },
        ],
        'merged',
      );
    expect(plan(decided).start.scenario.untilDecided).toBe(true);
    expect(plan(start('b', 8, { index: 1, count: 2 })).start.scenario.untilDecided).toBeUndefined();
  });

  it('a merge of merges keeps every source run, its cycle range shifted', () => {
    const inner = planMerge(
      [
        { start: start('a', 2), cycleIds: ids(1, 2), source: 'a', status: 'complete' },
        { start: start('b', 2), cycleIds: ids(1, 1), source: 'b', status: 'interrupted' },
      ],
      'ab',
    ).start;
    const outer = planMerge(
      [
        { start: start('c', 3), cycleIds: ids(1, 3), source: 'c', status: 'complete' },
        { start: inner, cycleIds: ids(1, 3), source: 'ab' },
      ],
      'abc',
    ).start;
    expect(outer.sources!.map((x) => [x.runId, x.firstCycle, x.lastCycle, x.plannedCycles, x.status])).toEqual([
      ['c', 1, 3, 3, 'complete'],
      ['a', 4, 5, 2, 'complete'],
      ['b', 6, 6, 2, 'interrupted'],
    ]);
  });

  it('shifts runs whose ids overlap past the previous runs, and adds their cycle counts', () => {
    const plan = planMerge(
      [
        { start: start('n1', 80), cycleIds: ids(1, 80), source: 'n1' },
        { start: start('n2', 80), cycleIds: ids(1, 75), source: 'n2' }, // stopped early: its declared 80 still counts
        { start: start('n3', 40), cycleIds: ids(1, 40), source: 'n3' },
      ],
      'm',
    );
    expect(plan.shifts).toEqual([0, 80, 160]);
    expect(plan.start.scenario.cycles).toBe(200);
    const e: JournalEvent = { schemaVersion: 1, t: 5, type: 'cycle-start', cycle: 3 } as JournalEvent;
    expect(mergeEvent(e, 160)).toMatchObject({ type: 'cycle-start', cycle: 163, t: 5 });
    expect(mergeEvent({ schemaVersion: 1, t: 1, type: 'run-resume', killedGroups: [], remaining: 0 }, 160)).toBeNull();
  });

  it('plans sources with a million cycle ids (the ids are never spread into a call)', () => {
    const big = ids(1, 1_000_000);
    const plan = planMerge(
      [
        { start: start('a', 1_000_000), cycleIds: big, source: 'a' },
        { start: start('b', 10), cycleIds: ids(1, 10), source: 'b' },
      ],
      'm',
    );
    expect(plan.shifts).toEqual([0, 1_000_000]);
  });

  it('names a source without a run-start event', () => {
    expect(() => planMerge([{ start: undefined, cycleIds: new Set(), source: '/runs/x/journal.ndjson' }], 'm')).toThrow(
      InputError,
    );
    expect(() => planMerge([{ start: undefined, cycleIds: new Set(), source: '/runs/x/journal.ndjson' }], 'm')).toThrow(
      /\/runs\/x\/journal\.ndjson has no run-start/,
    );
    expect(() => planMerge([], 'm')).toThrow(/no run folder/);
  });

  it('mergeJournals (in memory) writes the planned run-start and the shifted cycle events, nothing else', () => {
    const ev = (type: string, cycle: number): JournalEvent =>
      ({ schemaVersion: 1, t: cycle, type, cycle }) as unknown as JournalEvent;
    const a = [start('a', 2), ev('cycle-start', 1), ev('cycle', 1), ev('cycle-start', 2), ev('cycle', 2)];
    const b = [
      start('b', 2),
      ev('cycle-start', 1),
      ev('cycle', 1),
      { schemaVersion: 1, t: 9, type: 'run-end' } as unknown as JournalEvent,
    ];
    const merged = mergeJournals(
      [
        { events: a, source: 'a' },
        { events: b, source: 'b' },
      ],
      'm',
    );
    expect(merged.map((e) => [e.type, (e as { cycle?: number }).cycle])).toEqual([
      ['run-start', undefined],
      ['cycle-start', 1],
      ['cycle', 1],
      ['cycle-start', 2],
      ['cycle', 2],
      ['cycle-start', 3],
      ['cycle', 3],
    ]);
  });
});
