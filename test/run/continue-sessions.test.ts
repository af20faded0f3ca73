// --resume of a run of several sessions at once (issue 36): scanToContinue keeps each session's finished cycles and
// boot nonces apart (a cycle one session finished is still to run in another); and the e2e test's exactly-once count
// (test/helpers/exactly-once.ts) fails on a journal where one (session, cycle) is doubled or missing (its negative control).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureEnvironment } from '../../harness/core/environment.js';
import type { EventInput, JournalEvent } from '../../harness/journal/events.js';
import { JournalWriter, readJournal } from '../../harness/journal/writer.js';
import { continueRun, scanToContinue } from '../../harness/run/continue-run.js';
import { quietProgress } from '../../harness/run/progress.js';
import { InputError } from '../../harness/core/errors.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { exactlyOnceIssues } from '../helpers/exactly-once.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The outcome of `cycle` in `session` (0: no field, as the runner writes it). */
function outcome(cycle: number, session: number): EventInput {
  return {
    type: 'cycle',
    cycle,
    phase: 'work',
    observedPhase: 'work',
    outcome: 'ok',
    downtimeMs: 12,
    killStep: 30,
    restoredSeq: 2,
    restoredStep: 28,
    lostSteps: 2,
    restoreKills: 0,
    violations: [],
    ...(session > 0 ? { session } : {}),
  };
}

/** A journal of a run of `sessions` x `cycles`, run-start then `events`; its file. */
function journal(sessions: number, cycles: number, events: readonly EventInput[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-resume-sessions-'));
  dirs.push(dir);
  const file = path.join(dir, 'journal.ndjson');
  let t = 0;
  const j = new JournalWriter(file, () => (t += 10));
  const { scenario } = loadScenario('default', { cycles, sessions });
  j.append({ type: 'run-start', runId: 'r', startedAt: '', scenario, environment: captureEnvironment({}) });
  for (const e of events) j.append(e);
  j.close();
  return file;
}

const every = (sessions: number, cycles: number): EventInput[] =>
  Array.from({ length: sessions * cycles }, (_, k) => outcome((k % cycles) + 1, Math.floor(k / cycles)));
const eventsOf = (file: string): JournalEvent[] => readJournal(file).events;
const rawEvents = (file: string): JournalEvent[] =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEvent);

describe('scanToContinue of a run of several sessions', () => {
  it("lists each session's own unfinished cycles and boot nonces", () => {
    const file = journal(3, 3, [
      { type: 'boot', cycle: 1, bootMs: 200, nonce: 'n0' },
      { type: 'boot', cycle: 1, bootMs: 200, nonce: 'n2', session: 2 },
      outcome(1, 0),
      outcome(2, 1), // session 1 finished cycle 2 (not 1): cycle 2 of sessions 0 and 2 is still to run
      { type: 'cycle-start', cycle: 2, phase: 'work', session: 2 }, // in the middle: run again
      outcome(1, 2),
    ]);
    const scan = scanToContinue(file);
    expect(scan.sessions.map((s) => s.remaining)).toEqual([
      [2, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(scan.sessions.map((s) => s.nonces)).toEqual([['n0'], [], ['n2']]);
    expect(scan.remaining).toEqual([2, 3]); // session 0's, as a one-session run's
  });

  it('a one-session journal has one entry, its remaining cycles', () => {
    const scan = scanToContinue(journal(1, 3, [outcome(2, 0)]));
    expect(scan.sessions).toEqual([{ remaining: [1, 3], nonces: [] }]);
  });
});

describe('continueRun of a run of several sessions', () => {
  it('refuses a journaled scenario that cannot run many sessions (a journal is input), exit 3, nothing appended', async () => {
    const file = journal(2, 3, [outcome(1, 1)]);
    const text = readFileSync(file, 'utf8').replace('"target":"process"', '"target":"exec"');
    writeFileSync(file, text);
    const opts = {
      runDir: path.dirname(file),
      progress: quietProgress,
      stop: { requested: false },
      logLevel: 'silent' as const,
    };
    const err = await continueRun(opts).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(
      `--resume: ${file}: run-start: sessions: 2: target "exec" runs one session at a time (only process and microvm run many)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('exactlyOnceIssues (the e2e exactly-once assertion)', () => {
  it('passes a journal judging each (session, cycle) once', () => {
    expect(exactlyOnceIssues(eventsOf(journal(3, 2, every(3, 2))))).toEqual([]);
  });

  it('negative control: fails on a (session, cycle) missing, or judged twice', () => {
    const missing = every(3, 2).filter((_, k) => k !== 3); // session 1 cycle 2
    expect(exactlyOnceIssues(eventsOf(journal(3, 2, missing)))).toEqual(['session 1 cycle 2: judged 0 times']);
    // a doubled outcome is a damaged journal to every reader (the protocol): the count is fed the raw lines
    const doubled = rawEvents(journal(3, 2, [...every(3, 2), outcome(1, 2)]));
    expect(exactlyOnceIssues(doubled)).toEqual(['session 2 cycle 1: judged 2 times']);
    expect(exactlyOnceIssues(eventsOf(journal(3, 2, [...every(3, 2), outcome(3, 1)])))).toEqual([
      'session:cycle 1:3: judged 1 times, never planned',
    ]);
  });
});
