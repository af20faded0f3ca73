// Continue a run of several sessions at once (scenario sessions > 1, issue 36) whose runner died (`soak run --resume`):
// each session goes on from what its own journaled outcomes say it finished, as a one-session run does
// (continue-run.ts): a cycle it was in the middle of is run again from its start (same id, same planned kill) after
// its session restores its own newest complete checkpoint (sessions/<i>/store; a boot when it has none), and its own
// boot nonces stay taken. The dead runner's hosts of every session were killed by the caller before this runs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { nowMs } from '../core/clock.js';
import { JournalWriter } from '../journal/writer.js';
import { sessionsIssue } from '../scenario/sessions.js';
import { Store } from '../store/store.js';
import { unmountStaleLazyfs } from '../nemesis/lazyfs-orphans.js';
import type { RunStartEvent } from '../journal/events.js';
import { FreshNonces } from './fresh-nonce.js';
import { resetScratch, type RunPaths } from './run-folder.js';
import type { RunControl, RunResult } from './runner.js';
import { runSessions, sessionPaths, type SessionsResume } from './sessions.js';

/** How session `paths` starts again: by restoring its newest complete checkpoint, or by a boot when it has none. */
function firstStartOf(paths: RunPaths): 'boot' | 'restore' {
  // its folders never made (the runner died before): it boots, as a new session would (opening would make them)
  if (!existsSync(path.join(paths.store, 'packs'))) return 'boot';
  let store: Store | undefined;
  try {
    store = Store.open(paths.store, { purpose: 'soak run --resume' });
    return store.latest() !== null ? 'restore' : 'boot';
  } finally {
    store?.close();
  }
}

/** What continuing needs of the run's journal (continue-run.ts scanToContinue). */
export interface SessionsScan {
  start: RunStartEvent;
  /** Time of the last event, so the resumed journal's times carry on from it. */
  lastT: number;
  /** Boot sample ids not yet journaled (run in session 0's folder before the sessions start). */
  remainingSamples: number[];
  /** Per session index: its cycle ids still to run, in order, and the boot nonces its journal recorded. */
  sessions: { remaining: number[]; nonces: string[] }[];
}

/** What the caller stopped of the dead runner (journaled in run-resume). */
export interface Stopped {
  killedGroups: number[];
  killedDeclared: number[];
}

/** Run every session's unfinished cycles of the run in `paths` (its lock held, its orphans killed). */
export async function continueSessions(
  opts: RunControl,
  paths: RunPaths,
  scan: SessionsScan,
  stopped: Stopped,
): Promise<RunResult> {
  const scenario = scan.start.scenario;
  const issue = sessionsIssue(scenario); // a journal is input: its scenario is held to what runs with many sessions
  if (issue !== undefined) throw new InputError(`--resume: ${paths.journal}: run-start: ${issue}`);
  await unmountStaleLazyfs();
  const resume: SessionsResume = {
    sessions: scan.sessions.map((s, i) => {
      const own = sessionPaths(paths, i);
      resetScratch(own); // the dead runner's hosts may have left theirs
      return { cycles: s.remaining, firstStart: firstStartOf(own), nonces: new FreshNonces(s.nonces) };
    }),
  };
  const resumedAt = nowMs();
  const journal = new JournalWriter(paths.journal, () => scan.lastT + (nowMs() - resumedAt));
  const remaining = scan.sessions.reduce((sum, s) => sum + s.remaining.length, 0);
  journal.append({ type: 'run-resume', ...stopped, remaining });
  resetScratch(paths);
  const cycles = scan.sessions[0]!.remaining;
  return runSessions(opts, paths, journal, scenario, cycles, scan.remainingSamples, resume);
}
