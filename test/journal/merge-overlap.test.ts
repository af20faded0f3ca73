// `soak merge` refuses overlapping sources (issue 13, finding 8; issue 30): the same folder twice however it is named,
// the same run id twice (a copy, or a merged run that already holds it), the same shard of one seeded scenario twice (a
// retried shard), or cycles of one seeded scenario both hold (two unsharded runs of one seed, shards that meet, a merged
// run and a run of a seed it holds). Distinct shards, distinct seeds and unrelated runs still merge; --force merges an
// overlap and records why in the merged run-start.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import type { RunStartEvent } from '../../harness/journal/events.js';
import { planMerge, type MergeInput } from '../../harness/journal/merge.js';

interface StartOptions {
  seed?: number;
  name?: string;
  shard?: { index: number; count: number };
  mergedFrom?: string[];
  target?: string;
}

function start(runId: string, o: StartOptions = {}): RunStartEvent {
  return {
    schemaVersion: 1,
    t: 0,
    type: 'run-start',
    runId,
    startedAt: '2026-12-01T00:00:00.000Z',
    scenario: {
      name: o.name ?? 'default',
      cycles: 4,
      seed: o.seed ?? 9,
      target: o.target ?? 'process',
    } as RunStartEvent['scenario'],
    environment: { cpuModel: 'AMD EPYC', cores: 2, kernel: '6.1.0', os: 'Linux 6.1.0' } as RunStartEvent['environment'],
    ...(o.shard ? { shard: o.shard } : {}),
    ...(o.mergedFrom ? { mergedFrom: o.mergedFrom } : {}),
  };
}

function input(source: string, s: RunStartEvent, realPath?: string, ids: number[] = [1, 2, 3, 4]): MergeInput {
  return { start: s, cycleIds: new Set(ids), source, ...(realPath === undefined ? {} : { realPath }) };
}

/** The InputError planMerge throws for these inputs (fails the test when it does not throw). */
function refusal(inputs: MergeInput[]): InputError {
  try {
    planMerge(inputs, 'merged');
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as InputError;
  }
  throw new Error('planMerge accepted overlapping sources');
}

describe('planMerge refuses overlapping sources', () => {
  it('the same folder twice, named through a symlink (runs/latest) and by its real path', () => {
    const real = '/srv/runs/20261201T025632-default-s3';
    const err = refusal([
      input('/srv/runs/latest', start('20261201T025632-default-s3'), real),
      input(real, start('20261201T025632-default-s3'), real),
    ]);
    expect(err.message).toContain('/srv/runs/latest and /srv/runs/20261201T025632-default-s3');
    expect(err.message).toContain(`same run folder (${real})`);
  });

  it('the same run id in two folders (a copied run), even among other runs', () => {
    const err = refusal([
      input('/a/n1', start('n1', { seed: 1 }), '/a/n1'),
      input('/a/n2', start('n2', { seed: 2 }), '/a/n2'),
      input('/b/n1-copy', start('n1', { seed: 1 }), '/b/n1-copy'),
    ]);
    expect(err.message).toMatch(/^merge: \/a\/n1 and \/b\/n1-copy both hold run n1;/);
  });

  it('a merged run together with one of the runs it already combines', () => {
    const err = refusal([
      input('/m', start('m', { mergedFrom: ['s0', 's1'] }), '/m'),
      input('/runs/s1', start('s1', { shard: { index: 1, count: 2 } }), '/runs/s1'),
    ]);
    expect(err.message).toContain('/m and /runs/s1 both hold run s1');
  });

  it('the same shard of the same seeded scenario twice (a retried shard, another run id)', () => {
    const shard = { index: 2, count: 4 };
    const err = refusal([
      input('/shards/s2', start('try1', { shard }), '/shards/s2', [3, 7]),
      input('/shards/s3', start('other', { shard: { index: 3, count: 4 } }), '/shards/s3', [4, 8]),
      input('/retry/s2', start('try2', { shard }), '/retry/s2', [3, 7]),
    ]);
    expect(err.message).toContain('/shards/s2 and /retry/s2 are both shard 3/4 of scenario default with seed 9');
  });

  it('still merges distinct shards, the same shard of another seed or scenario, and unrelated runs', () => {
    const shards = [0, 1, 2, 3].map((index) =>
      input(`/s${index}`, start(`s${index}`, { shard: { index, count: 4 } }), `/s${index}`, [index + 1]),
    );
    expect(planMerge(shards, 'm').start.mergedFrom).toEqual(['s0', 's1', 's2', 's3']);
    const shard = { index: 0, count: 2 };
    expect(() =>
      planMerge(
        [
          input('/x', start('x', { shard, seed: 1 }), '/x'),
          input('/y', start('y', { shard, seed: 2 }), '/y'),
          input('/z', start('z', { shard, name: 'torn-checkpoint', seed: 1 }), '/z'),
          input('/n', start('n'), '/n'),
        ],
        'm',
      ),
    ).not.toThrow();
  });

  it('in-memory sources without a real path are still told apart by run id', () => {
    expect(refusal([input('a', start('r')), input('b', start('r'))]).message).toContain('a and b both hold run r');
    expect(() =>
      planMerge([input('a', start('r1', { seed: 1 })), input('b', start('r2', { seed: 2 }))], 'm'),
    ).not.toThrow();
  });
});

describe('a merge of merged runs', () => {
  it('names every run it holds, so merging it with one of them again is refused', () => {
    const ab = planMerge([input('/a', start('a', { seed: 1 })), input('/b', start('b', { seed: 2 }))], 'ab').start;
    const abc = planMerge([input('/ab', ab), input('/c', start('c', { seed: 3 }))], 'abc').start;
    expect(abc.mergedFrom).toEqual(['a', 'b', 'c']);
    expect(refusal([input('/abc', abc), input('/b2', start('b', { seed: 2 }))]).message).toContain(
      '/abc and /b2 both hold run b',
    );
  });
});

describe('planMerge refuses cycles of one seeded scenario held twice (a kill plan is a pure function of (seed, cycle))', () => {
  it('two unsharded runs of one seed that both ran cycles (two nights of a fixed-seed scenario)', () => {
    const err = refusal([input('/n1', start('n1'), '/n1'), input('/n2', start('n2'), '/n2', [1, 2])]);
    expect(err.message).toBe(
      "merge: /n1 and /n2 are both runs of scenario default (target process) with seed 9 with no shard split and both ran cycle 1 (and 1 more): a cycle's kill plan is a pure function of (seed, cycle), so it would count twice; merging them would count the same cycles twice (pass each run once, or --force to merge them anyway, recorded in the merged run)",
    );
  });

  it('a shard and an unsharded run of one seed, and shards of different counts that meet', () => {
    expect(
      refusal([
        input('/all', start('all'), '/all'),
        input('/s1', start('s1', { shard: { index: 1, count: 2 } }), '/s1', [2, 4]),
      ]).message,
    ).toContain('with seed 9 and both ran cycle 2 (and 1 more)');
    const half = input('/h', start('h', { shard: { index: 0, count: 2 } }), '/h', [1, 3]);
    const quarter = input('/q', start('q', { shard: { index: 0, count: 4 } }), '/q', [1]);
    expect(refusal([half, quarter]).message).toContain('both ran cycle 1');
  });

  it('a merged run and a run of a seed among its sources (its ids were shifted: its shards say what it may hold)', () => {
    const ab = planMerge([input('/a', start('a', { seed: 1 })), input('/b', start('b', { seed: 2 }))], 'ab').start;
    const err = refusal([input('/ab', ab, '/ab'), input('/b2', start('b2', { seed: 2 }), '/b2')]);
    expect(err.message).toContain('/ab and /b2 are both runs of scenario default (target process) with seed 2');
    expect(err.message).toContain('may both hold the same cycles');
  });

  it('still merges: another seed, scenario or target; a run that ran no cycle; shards that cannot meet', () => {
    const ok = (inputs: MergeInput[]): void => {
      expect(() => planMerge(inputs, 'm')).not.toThrow();
    };
    ok([input('/a', start('a')), input('/b', start('b', { seed: 10 }))]);
    ok([input('/a', start('a')), input('/b', start('b', { name: 'torn-checkpoint' }))]);
    ok([input('/a', start('a')), input('/b', start('b', { target: 'microvm' }))]);
    ok([input('/a', start('a')), input('/b', start('b'), '/b', [])]);
    ok([
      input('/h', start('h', { shard: { index: 1, count: 2 } }), '/h', [2, 4]),
      input('/q', start('q', { shard: { index: 0, count: 4 } }), '/q', [1]),
    ]);
  });
});

describe('merge --force', () => {
  it('merges an overlap, its cycle ids shifted apart, and records why (by run id) in the merged run-start', () => {
    const plan = planMerge([input('/n1', start('n1'), '/n1'), input('/n2', start('n2'), '/n2')], 'm', { force: true });
    expect(plan.shifts).toEqual([0, 4]);
    expect(plan.start.forcedOverlap).toEqual([
      "runs n1 and n2 are both runs of scenario default (target process) with seed 9 with no shard split and both ran cycle 1 (and 3 more): a cycle's kill plan is a pure function of (seed, cycle), so it would count twice",
    ]);
    const again = planMerge([input('/m', plan.start, '/m'), input('/c', start('c', { seed: 3 }), '/c')], 'mc').start;
    expect(again.forcedOverlap).toEqual(plan.start.forcedOverlap); // a merge of a forced merge stays marked
    expect(
      planMerge([input('/a', start('a')), input('/b', start('b', { seed: 1 }))], 'm', { force: true }).start,
    ).not.toHaveProperty('forcedOverlap');
  });
});
