// Merging runs of several sessions at once (issue 36): shards of one such soak merge into one run of that many sessions
// whose every (session, cycle) is judged once (events keep their session; cycle ids stay disjoint, or are shifted for
// runs that are not shards); sources that ran different numbers of sessions are refused in one line (the negative
// control: the same sources with one count merge).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { mergeJournals } from '../../harness/journal/merge.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { cycleIds, type Shard } from '../../harness/scenario/shard.js';
import { exactlyOnceIssues } from '../helpers/exactly-once.js';
import { journalEvent } from '../helpers/journal-events.js';
import { testEnvironment } from '../helpers/journal-events.js';
import { thrown } from '../helpers/thrown.js';

/** The journal of run `runId`: `sessions` sessions of `cycles` cycles (its shard's), each cycle started and judged. */
function run(runId: string, sessions: number, cycles: number, seed: number, shard?: Shard): JournalEvent[] {
  const { scenario } = loadScenario('default', { cycles, sessions, seed });
  const start = { type: 'run-start', runId, startedAt: '', scenario, environment: testEnvironment } as const;
  const events: JournalEvent[] = [journalEvent({ ...start, ...(shard ? { shard } : {}) })];
  let t = 0;
  for (let s = 0; s < sessions; s++)
    for (const cycle of cycleIds(cycles, shard)) {
      const session = s > 0 ? { session: s } : {};
      events.push(journalEvent({ type: 'cycle-start', cycle, phase: 'work', ...session }, ++t));
      events.push(
        journalEvent(
          {
            type: 'cycle',
            cycle,
            phase: 'work',
            observedPhase: 'work',
            outcome: 'ok',
            downtimeMs: 10,
            killStep: 5,
            restoredSeq: 1,
            restoredStep: 4,
            lostSteps: 1,
            restoreKills: 0,
            violations: [],
            ...session,
          },
          ++t,
        ),
      );
    }
  events.push(journalEvent({ type: 'run-end', status: 'complete', cycles: sessions * cycles }, t + 1));
  return events;
}

describe('soak merge of runs of several sessions', () => {
  it('two shards of a 3-session soak: one run of 3 sessions, each (session, cycle) once', () => {
    const a = run('a', 3, 6, 4, { index: 0, count: 2 });
    const b = run('b', 3, 6, 4, { index: 1, count: 2 });
    const merged = mergeJournals(
      [
        { events: a, source: 'a' },
        { events: b, source: 'b' },
      ],
      'm',
    );
    expect(merged[0]).toMatchObject({ type: 'run-start', scenario: { sessions: 3, cycles: 6 } });
    expect(exactlyOnceIssues(merged)).toEqual([]);
    expect(merged.filter((e) => e.type === 'cycle' && e.session === 2)).toHaveLength(6);
    // each source's planned and run cycles count its (session, cycle) pairs: 3 ids x 3 sessions
    const sources = merged[0]?.type === 'run-start' ? merged[0].sources : undefined;
    expect(sources?.map((r) => [r.plannedCycles, r.cycles])).toEqual([
      [9, 9],
      [9, 9],
    ]);
  });

  it('two nights of 2 sessions (not shards): ids shifted apart, each (session, cycle) once', () => {
    const merged = mergeJournals(
      [
        { events: run('n1', 2, 3, 11), source: 'n1' },
        { events: run('n2', 2, 3, 12), source: 'n2' },
      ],
      'm',
    );
    expect(merged[0]).toMatchObject({ scenario: { sessions: 2, cycles: 6 } });
    expect(exactlyOnceIssues(merged)).toEqual([]);
  });

  it('refuses sources of different numbers of sessions in one line (exit 3)', () => {
    const err = thrown(() =>
      mergeJournals(
        [
          { events: run('a', 3, 6, 4, { index: 0, count: 2 }), source: 'runs/a' },
          { events: run('b', 1, 6, 4, { index: 1, count: 2 }), source: 'runs/b' },
        ],
        'm',
      ),
    );
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe(
      'merge: runs/a ran 3 session(s) at once, runs/b ran 1: only runs of the same number of sessions merge',
    );
  });
});
