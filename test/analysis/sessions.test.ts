// A run of several sessions at once (issue 36), analysed from a journal written through each session's view of one
// writer: cycle ids repeat across sessions and are neither taken for repeats by the protocol nor counted once; each
// session is tallied on its own beside the pooled figures; a session whose kill-and-resume rate is bad on its own
// fails gate 6 even where the pooled rate passes (it cannot hide in a pooled rate); session 0 keeps today's seed.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { judge } from '../../harness/gates/judge.js';
import type { CycleEvent, EventInput, JournalEvent } from '../../harness/journal/events.js';
import { JournalWriter } from '../../harness/journal/writer.js';
import { sessionJournal } from '../../harness/run/session-journal.js';
import { parseScenario, type Scenario } from '../../harness/scenario/scenario.js';
import { sessionScenario, sessionSeed } from '../../harness/scenario/sessions.js';
import { testEnvironment } from '../helpers/journal-events.js';
import { repoRoot } from '../helpers/paths.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-sessions-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const outcome = (cycle: number, ok: boolean): EventInput => ({
  type: 'cycle',
  cycle,
  phase: 'work',
  observedPhase: 'work',
  outcome: ok ? 'ok' : 'fail',
  downtimeMs: ok ? 50 : null,
  killStep: 10,
  restoredSeq: ok ? 1 : null,
  restoredStep: ok ? 9 : null,
  lostSteps: ok ? 1 : null,
  restoreKills: 0,
  violations: [],
});

/**
 * A run folder whose journal holds `sessions` sessions of `cycles` cycles each, interleaved cycle by cycle the way
 * concurrent sessions write them; `failing(session, cycle)` makes that cycle's resume fail.
 */
function sessionRun(name: string, sessions: number, cycles: number, failing: (s: number, c: number) => boolean) {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  const scenario: Scenario = parseScenario(`name: ${name}\ncycles: ${cycles}\nsessions: ${sessions}\n`, 'x.yaml');
  const journal = new JournalWriter(path.join(dir, 'journal.ndjson'), () => 1);
  journal.append({
    type: 'run-start',
    runId: name,
    startedAt: '2026-12-05T00:00:00Z',
    scenario,
    environment: testEnvironment,
  });
  const views = Array.from({ length: sessions }, (_, s) => sessionJournal(journal, s, () => {}));
  for (let c = 1; c <= cycles; c++)
    for (const [s, view] of views.entries()) {
      view.append({ type: 'cycle-start', cycle: c, phase: 'work' });
      view.append(outcome(c, !failing(s, c)));
    }
  for (const view of views) view.append({ type: 'run-end', status: 'complete', cycles }); // kept from the journal
  journal.append({ type: 'run-end', status: 'complete', cycles: sessions * cycles });
  journal.close();
  return dir;
}

describe('a journal of several sessions', () => {
  it('counts each (session, cycle) once, writes session 0 without the field, and tallies each session', async () => {
    const dir = sessionRun('three', 3, 4, (s, c) => s === 2 && c === 3);
    const lines = readFileSync(path.join(dir, 'journal.ndjson'), 'utf8').trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('"type":"run-end"'))).toHaveLength(1); // the sessions' own are the run's
    const outcomes = lines.map((l) => JSON.parse(l) as JournalEvent).filter((e): e is CycleEvent => e.type === 'cycle');
    expect(outcomes.map((e) => e.session ?? 0).slice(0, 3)).toEqual([0, 1, 2]);
    expect(lines.filter((l) => l.includes('"session":0'))).toEqual([]);
    expect(lines.find((l) => l.includes('"session":1'))).toMatch(
      /^\{"schemaVersion":1,"t":1,"type":"cycle-start","session":1,"cycle":1,/,
    );

    const { analysis } = await loadRuns([dir]); // a repeat of a cycle id across sessions is no protocol error
    const s = analysis.summary;
    expect(s.cycles).toEqual({ total: 12, resumed: 11, failed: 1, indeterminate: 0 });
    expect(s.sessions?.rows.map((r) => [r.session, r.cycles.total, r.cycles.failed])).toEqual([
      [0, 4, 0],
      [1, 4, 0],
      [2, 4, 1],
    ]);
    expect(s.sessions?.rows.map((r) => r.seed)).toEqual([0, 1, 2].map((i) => sessionSeed(s.seed, i)));
  });

  it('is folded the same when long enough for threads (built harness; read on one: their parts key cycles without sessions)', async () => {
    const dir = sessionRun('threads', 3, 4, (s, c) => s === 1 && c === 2);
    const one = (await loadRuns([dir])).analysis.summary;
    // worker threads run only from dist/ (as test/analysis/parallel.test.ts): the built harness folds it
    const built = pathToFileURL(path.join(repoRoot, 'dist', 'harness', 'analysis', 'load-runs.js')).href;
    const { loadRuns: loadBuilt } = (await import(built)) as typeof import('../../harness/analysis/load-runs.js');
    const split = (await loadBuilt([dir], { parallelFromBytes: 1, threads: 2 })).analysis.summary;
    expect(split.cycles).toEqual({ total: 12, resumed: 11, failed: 1, indeterminate: 0 });
    expect(split.sessions).toEqual(one.sessions);
  });

  it('a repeated outcome of one session is still a protocol error, named with its session', async () => {
    const dir = sessionRun('repeat', 2, 1, () => false);
    const journal = new JournalWriter(path.join(dir, 'journal.ndjson'), () => 2);
    journal.append({ type: 'run-resume', killedGroups: [], remaining: 0 });
    sessionJournal(journal, 1, () => {}).append(outcome(1, true));
    journal.close();
    await expect(loadRuns([dir])).rejects.toThrow(/cycle-repeated: session 1 cycle 1's outcome journaled again/);
  });
});

describe('a bad session cannot hide in a pooled rate', () => {
  // 8 sessions x 100 cycles; session 7 fails 10 of its 100 resumes: pooled 790/800, Wilson 95% lower bound 0.977
  // (gate 6's bar 0.95 passes), session 7 alone 90/100, its whole interval [0.826, 0.945] below the bar.
  it('gate 6 fails, naming session 7, though its pooled rate passes', async () => {
    const dir = sessionRun('hidden', 8, 100, (s, c) => s === 7 && c % 10 === 0);
    const { analysis } = await loadRuns([dir]);
    expect(analysis.summary.killResume).toMatchObject({ successes: 790, trials: 800 });
    expect(analysis.summary.killResume.wilson95![0]).toBeGreaterThan(0.95); // pooled alone would pass
    const gate6 = judge(analysis).gates.find((g) => g.id === 6)!;
    expect(gate6.verdict).toBe('fail');
    expect(gate6.note).toContain('fails in session 7 of 8 on its own');
  });

  it('a session short of n for a pass is not a fail: 8 clean sessions pass gate 6 pooled', async () => {
    const dir = sessionRun('clean', 8, 20, () => false); // 20 per session: each alone "insufficient"
    const { analysis } = await loadRuns([dir]);
    const gate6 = judge(analysis).gates.find((g) => g.id === 6)!;
    expect(gate6.verdict).toBe('pass');
    expect(gate6.note).not.toContain('fails in session');
  });
});

describe('session seeds', () => {
  it("session 0 runs the scenario's own seed (today's plan); the others a pure function of (seed, session)", () => {
    const s = parseScenario('name: s\nseed: 42\nsessions: 4\n', 's.yaml');
    expect(sessionScenario(s, 0)).toBe(s);
    expect(sessionSeed(42, 0)).toBe(42);
    const seeds = [1, 2, 3].map((i) => sessionSeed(42, i));
    expect(new Set([42, ...seeds]).size).toBe(4);
    expect([1, 2, 3].map((i) => sessionSeed(42, i))).toEqual(seeds);
    expect(sessionSeed(43, 1)).not.toBe(seeds[0]);
    expect(sessionScenario(s, 2).seed).toBe(seeds[1]);
  });
});
