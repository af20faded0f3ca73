// The journal protocol and sessions (issue 36): an event's `session` must name one of the run-start's sessions (below
// its scenario's `sessions`; a journal from before sessions ran one); one past them is the named error
// session-out-of-range at its line, with the run-start's line, in one pass and in parts joined (analysis on several
// threads) alike; a negative or fractional session is refused by the schema, naming the line and field.
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../harness/journal/events.js';
import { JournalDamagedError, JournalProtocol } from '../../harness/journal/protocol.js';
import { parseJournal } from '../../harness/journal/reader.js';
import { IntegrityError } from '../../harness/core/errors.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { journalEvent, runStartEvent } from '../helpers/journal-events.js';
import { thrown } from '../helpers/thrown.js';

const start = (sessions: number): JournalEvent =>
  runStartEvent(loadScenario('default', { cycles: 2, sessions }).scenario, 'r');
const cycleStart = (cycle: number, t: number, session?: number): JournalEvent =>
  journalEvent({ type: 'cycle-start', cycle, phase: 'work', ...(session !== undefined ? { session } : {}) }, t);

/** Admit `events` as reader.ts does, cut into parts at `cuts` and joined; each error as `line code ref`. */
function errorsOf(events: JournalEvent[], cuts: number[] = []): string[] {
  const bounds = [0, ...cuts, events.length];
  const whole = new JournalProtocol('j');
  for (let k = 0; k + 1 < bounds.length; k++) {
    const p = k === 0 ? whole : new JournalProtocol('j', { part: true });
    events.slice(bounds[k], bounds[k + 1]).forEach((e, i) => {
      const sessions = e.type === 'run-start' ? e.scenario.sessions : 1;
      p.admit(i + 1, e.type, e.t, 0, false, e.session, sessions);
    });
    if (k > 0) whole.append(p.part(), bounds[k]!);
  }
  return whole.errors().errors.map((e) => `${e.line} ${e.code} ${e.ref}`);
}

describe('an event of a session the run-start did not run', () => {
  it('sessions 0 to N-1 are sound; session N is session-out-of-range at its line, naming the run-start', () => {
    expect(errorsOf([start(3), cycleStart(1, 1), cycleStart(1, 2, 1), cycleStart(1, 3, 2)])).toEqual([]);
    expect(errorsOf([start(3), cycleStart(1, 1, 2), cycleStart(1, 2, 3), cycleStart(2, 3, 63)])).toEqual([
      '3 session-out-of-range 1',
      '4 session-out-of-range 1',
    ]);
  });

  it('a one-session run (and a journal from before sessions) has no session above 0', () => {
    expect(errorsOf([start(1), cycleStart(1, 1, 1)])).toEqual(['2 session-out-of-range 1']);
    const { sessions: _gone, ...old } = loadScenario('default').scenario;
    const lines = [{ ...start(1), scenario: old }, cycleStart(1, 1, 1)].map((e) => JSON.stringify(e));
    const err = thrown(() => parseJournal(`${lines.join('\n')}\n`, 'j'));
    expect(err.message).toContain(
      'line 2: session-out-of-range: a cycle-start event of session 1, but the run-start at line 1 ran 1 session (0 to 0)',
    );
  });

  it('found alike at every split of the journal into two and three parts', () => {
    const events = [start(2), cycleStart(1, 1, 1), cycleStart(1, 2), cycleStart(2, 3, 2), cycleStart(2, 4, 2)];
    const one = errorsOf(events);
    expect(one).toEqual(['4 session-out-of-range 1', '5 session-out-of-range 1']);
    for (let a = 1; a < events.length; a++) {
      expect(errorsOf(events, [a])[0], `cut at ${a}`).toBe(one[0]);
      for (let b = a + 1; b < events.length; b++) expect(errorsOf(events, [a, b])[0], `${a}, ${b}`).toBe(one[0]);
    }
  });

  it('a reader throws JournalDamagedError (exit 3) in one line naming the line, the session and the count', () => {
    const text = [start(2), cycleStart(1, 1, 1), cycleStart(1, 2, 5)].map((e) => JSON.stringify(e)).join('\n');
    const err = thrown(() => parseJournal(`${text}\n`, '/runs/x/journal.ndjson'));
    expect(err).toBeInstanceOf(JournalDamagedError);
    expect(err).toHaveProperty('exitCode', 3);
    expect(err.message).toBe(
      'journal /runs/x/journal.ndjson is damaged: line 3: session-out-of-range: a cycle-start event of session 5, but the run-start at line 1 ran 2 sessions (0 to 1); nothing from it is analysed (soak check <run folder> names every error)',
    );
  });

  it.each([-1, 1.5, 64])('session %s is refused by the schema, naming the line and field', (session) => {
    const text = [JSON.stringify(start(2)), JSON.stringify({ ...cycleStart(1, 1), session })].join('\n');
    const err = thrown(() => parseJournal(`${text}\n`, 'j'));
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err.message).toMatch(/^journal j line 2: .*session.*0 to 63/);
    expect(err.message).not.toContain('\n');
  });
});
