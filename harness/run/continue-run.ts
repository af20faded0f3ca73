// Continue a run whose runner died (`soak run --resume`; not a session's resume, which interruption.ts judges): one
// streamed pass over its journal says which cycles remain and which host groups it started; those still alive are
// killed, and the session restores from the newest checkpoint. A run of several sessions at once (issue 36) is
// continued session by session: each from the cycles its own outcomes say it finished (continue-sessions.ts).
import { InputError } from '../core/errors.js';
import { nowMs } from '../core/clock.js';
import type { HostStartEvent, JournalEvent, RunStartEvent } from '../journal/events.js';
import { JournalWriter, streamJournal } from '../journal/writer.js';
import { resolveRunDir } from '../analysis/load-runs.js';
import { Store } from '../store/store.js';
import { declaredKillLists, hostGroups, type JournaledKill, killDeclared, killOrphans } from './orphans.js';
import { unmountStaleLazyfs } from '../nemesis/lazyfs-orphans.js';
import { resetScratch, runPaths, type RunPaths } from './run-folder.js';
import { RunLock } from './run-lock.js';
import { runCycles, type RunControl, type RunResult } from './runner.js';
import { cycleIds } from '../scenario/shard.js';
import { bootSampleIds } from './boot-samples.js';
import { FreshNonces } from './fresh-nonce.js';
import type { Scenario } from '../scenario/scenario.js';
import { checkLedger } from './effects-run.js';
import { sessionCycleKey } from '../journal/session-key.js';
import { continueSessions } from './continue-sessions.js';

/** Which run folder to pick up. */
export interface ContinueOptions extends RunControl {
  runDir: string;
}

/** What continuing a run needs of its journal. */
export interface ContinueScan {
  start: RunStartEvent;
  /** Cycle ids still to run, in order. */
  remaining: number[];
  /** Boot sample ids not yet journaled, in order (boot-samples.ts). */
  remainingSamples: number[];
  /** Every host-start event: the process groups a dead runner may have left alive. */
  hosts: HostStartEvent[];
  /** Every process the hosts declared for their kill lists (a detached sandbox a dead runner could not kill). */
  declared: JournaledKill[];
  /** Time of the last event, so the resumed journal's times carry on from it. */
  lastT: number;
  /** Boot nonces of the run's sessions so far (boot samples' not: the live runner does not judge those either). */
  nonces: string[];
  /** Per session of a run of several at once (index = session; one entry for a one-session run): the same two. */
  sessions: { remaining: number[]; nonces: string[] }[];
}

/** One streamed pass over `file` (a long soak's journal need not fit in memory); bad input when it has no run-start. */
export function scanToContinue(file: string): ContinueScan {
  let start: RunStartEvent | undefined;
  const finished = new Set<number>(); // sessionCycleKey: cycle ids repeat in every session
  const sampled = new Set<number>();
  const hosts: HostStartEvent[] = [];
  const killLists: JournalEvent[] = [];
  const nonces = new Map<number, string[]>();
  let lastT = 0;
  streamJournal(file, (e) => {
    if (e.type === 'kill-list' || e.type === 'host-start') killLists.push(e);
    if (e.type === 'run-start') start ??= e;
    else if (e.type === 'cycle') finished.add(sessionCycleKey(e.session, e.cycle));
    else if (e.type === 'host-start') hosts.push(e);
    else if (e.type === 'boot' && e.sample !== undefined) sampled.add(e.sample);
    else if (e.type === 'boot') nonces.set(e.session ?? 0, [...(nonces.get(e.session ?? 0) ?? []), e.nonce]);
    lastT = e.t;
  });
  if (!start) throw new InputError(`${file} has no run-start event: nothing to resume`);
  const planned = cycleIds(start.scenario.cycles, start.shard);
  const count = (start.scenario as Partial<Scenario>).sessions ?? 1; // journals from before sessions: one
  const sessions = Array.from({ length: count }, (_, s) => ({
    remaining: planned.filter((c) => !finished.has(sessionCycleKey(s, c))),
    nonces: nonces.get(s) ?? [],
  }));
  const { remaining, nonces: first } = sessions[0]!;
  const samples = (start.scenario as Partial<Scenario>).bootSamples ?? 0; // journals from before bootSamples: none
  const remainingSamples = bootSampleIds(samples, start.shard).filter((s) => !sampled.has(s));
  const declared = declaredKillLists(killLists);
  return { start, remaining, remainingSamples, hosts, declared, lastT, nonces: first, sessions };
}

/** Pick up a run whose runner died: kill its orphaned hosts, restore the session, run the cycles not yet finished. */
export async function continueRun(opts: ContinueOptions): Promise<RunResult> {
  const paths = runPaths(resolveRunDir(opts.runDir));
  // First of all: a live runner's hosts must never be taken for a dead one's orphans, nor its journal appended to.
  const lock = RunLock.acquire(paths.dir, 'soak run --resume');
  try {
    return await continueLocked(opts, paths);
  } finally {
    lock.release();
  }
}

async function continueLocked(opts: ContinueOptions, paths: RunPaths): Promise<RunResult> {
  const scan = scanToContinue(paths.journal);
  const { start, remaining, remainingSamples, hosts, declared, lastT, nonces } = scan;
  const killedGroups = killOrphans(hostGroups(hosts), paths.dir); // every session's hosts: all are in the one journal
  const { killed: killedDeclared, spared } = killDeclared(declared);
  for (const why of spared) process.stderr.write(`soak: --resume did not kill a journaled kill-list entry: ${why}\n`);
  if (scan.sessions.length > 1) return continueSessions(opts, paths, scan, { killedGroups, killedDeclared });
  await unmountStaleLazyfs(); // before the scratch folder is emptied: a dead mount under it would fail that
  if (start.scenario.effects !== undefined) checkLedger(paths.dir); // missing or damaged: exit 3, nothing journaled
  const resumedAt = nowMs();
  const journal = new JournalWriter(paths.journal, () => lastT + (nowMs() - resumedAt));
  journal.append({ type: 'run-resume', killedGroups, remaining: remaining.length, killedDeclared });
  resetScratch(paths);
  const store = Store.open(paths.store);
  const hasCheckpoint = store.latest() !== null;
  store.close();
  const firstStart = hasCheckpoint ? 'restore' : 'boot';
  const fresh = new FreshNonces(nonces); // so a session after the resume cannot repeat one from before it
  return runCycles(opts, paths, journal, start.scenario, remaining, firstStart, remainingSamples, fresh);
}
