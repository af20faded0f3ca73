// The journal as a protocol (issue 30, item 4): events before run-start, a second run-start, events after run-end (no
// run-resume between), a cycle id's outcome twice and a time going back are each a named error at its line; what a
// resumed run, a merge or a SIGKILLed runner legitimately writes is not (every real journal in test/fixtures passes).
// No event from the first error on reaches a reader. A journal read in two parts and joined (analysis on several
// threads) finds the same first error as one pass, at every split point, and no error in a sound journal.
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../harness/journal/events.js';
import { JournalDamagedError, JournalProtocol, protocolMessage } from '../../harness/journal/protocol.js';
import { parseJournal } from '../../harness/journal/reader.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { fixtureNames, fixtureText } from '../helpers/journals.js';
import { journalEvent, runStartEvent } from '../helpers/journal-events.js';
import { thrown } from '../helpers/thrown.js';

const scenario = loadScenario('default', { cycles: 3 }).scenario;
const start = (t = 0): JournalEvent => runStartEvent(scenario, 'r', t);
const cycleStart = (cycle: number, t: number): JournalEvent =>
  journalEvent({ type: 'cycle-start', cycle, phase: 'work' }, t);
const outcome = (cycle: number, t: number): JournalEvent =>
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
    },
    t,
  );
const resume = (t: number): JournalEvent => journalEvent({ type: 'run-resume', killedGroups: [], remaining: 1 }, t);
const end = (t: number, status: 'complete' | 'interrupted' = 'complete'): JournalEvent =>
  journalEvent({ type: 'run-end', status, cycles: 1 }, t);

/** Each event through a collecting protocol: the errors as `line code ref` and the events a reader was given. */
function judge(events: JournalEvent[]): { errors: string[]; counted: number; protocol: JournalProtocol } {
  const protocol = new JournalProtocol('j');
  let counted = 0;
  events.forEach((e, i) => {
    const merged = e.type === 'run-start' && e.mergedFrom !== undefined;
    if (protocol.admit(i + 1, e.type, e.t, e.type === 'cycle' ? e.cycle : 0, merged)) counted++;
  });
  const errors = protocol.errors().errors.map((e) => `${e.line} ${e.code} ${e.ref}`);
  return { errors, counted, protocol };
}

const eventsOf = (text: string): JournalEvent[] =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEvent);

describe('what a runner, its resumes and a merge write is sound', () => {
  it.each(fixtureNames)('the real journal %s', (name) => {
    expect(judge(eventsOf(fixtureText(name))).errors).toEqual([]);
  });

  it('a run SIGKILLed mid-cycle, resumed, stopped (run-end interrupted), resumed again: cycle 2 started twice', () => {
    const events = [
      start(),
      cycleStart(1, 1),
      outcome(1, 2),
      cycleStart(2, 3), // the runner dies here: no outcome, no run-end
      resume(4),
      cycleStart(2, 5),
      outcome(2, 6),
      end(7, 'interrupted'),
      resume(8),
      cycleStart(3, 9),
      outcome(3, 9), // the same time is not going back
      end(10),
    ];
    expect(judge(events)).toMatchObject({ errors: [], counted: events.length });
  });

  it('a merged journal: each source keeps its own clock, so times may go back (but an outcome may not repeat)', () => {
    const merged: JournalEvent = { ...start(), mergedFrom: ['a', 'b'] } as JournalEvent;
    expect(judge([merged, outcome(1, 50), outcome(2, 3)]).errors).toEqual([]);
    expect(judge([merged, outcome(1, 50), outcome(1, 3)]).errors).toEqual(['3 cycle-repeated 2']);
  });
});

describe('each break of the protocol is a named error at its line', () => {
  it('an event before run-start, a second run-start, events after run-end, an outcome twice, a time going back', () => {
    const { errors, counted } = judge([
      cycleStart(1, 0), // 1: before run-start
      start(0), // 2
      cycleStart(1, 1),
      outcome(1, 2), // 4
      outcome(1, 3), // 5: cycle 1 again
      outcome(2, 1), // 6: t 1 after t 3
      start(4), // 7: a second run-start
      end(5), // 8
      outcome(3, 6), // 9: after run-end
      end(7), // 10: after run-end too
    ]);
    expect(errors).toEqual([
      '1 before-run-start 0',
      '5 cycle-repeated 4',
      '6 time-backwards 5',
      '7 run-start-repeated 2',
      '9 after-run-end 8',
      '10 after-run-end 8',
    ]);
    expect(counted).toBe(0); // the first line is already an error: nothing is counted
  });

  it('says what each error is, one line each', () => {
    const p = judge([start(), outcome(1, 5), outcome(1, 4), end(6), cycleStart(2, 7)]).protocol;
    const text = p.errors().errors.map((e) => `line ${e.line}: ${protocolMessage(e)}`);
    expect(text).toEqual([
      "line 3: cycle 1's outcome journaled again (first at line 2): two runners on one run folder?",
      'line 5: a cycle-start event after the run-end at line 4 with no run-resume between (written after its runner ended: two runners on one run folder?)',
    ]);
    const back = judge([start(), outcome(1, 5), outcome(2, 4)]).protocol.errors().errors[0]!;
    expect(protocolMessage(back)).toBe('t 4 is earlier than t 5 at line 2: events out of order');
  });

  it('the events before the first error are counted, none from it on (the valid prefix)', () => {
    expect(judge([start(), outcome(1, 1), outcome(2, 2), end(3), outcome(3, 4), cycleStart(4, 5)]).counted).toBe(4);
  });

  it('parseJournal (and every reader by default) throws JournalDamagedError, exit 3, naming the first error', () => {
    const text = [start(), outcome(1, 1), end(2), outcome(2, 3), outcome(2, 4)]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const err = thrown(() => parseJournal(`${text}\n`, '/runs/x/journal.ndjson'));
    expect(err).toBeInstanceOf(JournalDamagedError);
    expect(err).toHaveProperty('exitCode', 3);
    expect(err.message).toBe(
      'journal /runs/x/journal.ndjson is damaged: line 4: after-run-end: a cycle event after the run-end at line 3 with no run-resume between (written after its runner ended: two runners on one run folder?); nothing from it is analysed (soak check <run folder> names every error)',
    );
  });
});

describe('a journal read in parts and joined (analysis on several threads) = one pass', () => {
  /** The first error and whether any, reading `events` as parts cut at `cuts` (0-based event indexes). */
  function inParts(events: JournalEvent[], cuts: number[]): { first: string | null; damaged: boolean } {
    const bounds = [0, ...cuts, events.length];
    const whole = new JournalProtocol('j');
    for (let k = 0; k + 1 < bounds.length; k++) {
      const p = k === 0 ? whole : new JournalProtocol('j', { part: true });
      events.slice(bounds[k], bounds[k + 1]).forEach((e, i) => {
        const merged = e.type === 'run-start' && e.mergedFrom !== undefined;
        p.admit(i + 1, e.type, e.t, e.type === 'cycle' ? e.cycle : 0, merged);
      });
      if (k > 0) whole.append(p.part(), bounds[k]!);
    }
    const e = whole.errors().errors[0];
    return { first: e ? `${e.line} ${e.code}` : null, damaged: whole.damaged };
  }

  const damaged: [string, JournalEvent[]][] = [
    ['an event before run-start', [cycleStart(1, 0), start(0), outcome(1, 1), end(2)]],
    ['an outcome twice, far apart', [start(), outcome(1, 1), cycleStart(2, 2), outcome(2, 3), outcome(1, 4), end(5)]],
    ['events after run-end', [start(), outcome(1, 1), end(2), cycleStart(2, 3), outcome(2, 4)]],
    ['a second run-end', [start(), outcome(1, 1), end(2), end(3)]],
    ['a time going back', [start(), outcome(1, 5), cycleStart(2, 6), outcome(2, 4), end(7)]],
    ['a second run-start', [start(), outcome(1, 1), start(2), outcome(2, 3)]],
  ];
  it.each(damaged)('%s: the same first error at every split into 2 and 3 parts', (_what, events) => {
    const one = inParts(events, []);
    expect(one.damaged).toBe(true);
    for (let a = 1; a < events.length; a++) {
      expect(inParts(events, [a]), `cut at ${a}`).toEqual(one);
      for (let b = a + 1; b < events.length; b++) expect(inParts(events, [a, b]), `cuts at ${a}, ${b}`).toEqual(one);
    }
  });

  it.each(fixtureNames)('the sound journal %s stays sound at every split point', (name) => {
    const events = eventsOf(fixtureText(name));
    for (let a = 1; a < events.length; a++) expect(inParts(events, [a]).damaged, `cut at ${a}`).toBe(false);
  });
});
