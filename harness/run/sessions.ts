// Many sessions on one host at once (scenario sessions > 1, issue 36): each session runs every cycle of the run with
// its own seeded kill plan (scenario/sessions.ts), its own folder sessions/<i>/ (workspace, store, scratch, host and
// run logs), the same checker, and journals into the run's one journal with its index (session-journal.ts). Their
// stores share one packs folder (store/packs, linked from each session's store), so a chunk one session wrote is found
// by the next host of another, and the run's store tally is the sum over its sessions. One session's abort or hang
// stops no other: the run ends, with one run-end, once every session has ended; the first abort is then rethrown.
// Boot samples (gate 1) run before the sessions start, in session 0's folder.
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { JournalWriter } from '../journal/writer.js';
import type { RunEndEvent, StoreTally } from '../journal/events.js';
import { MEETING_FAULTS, type Scenario } from '../scenario/scenario.js';
import { sessionScenario } from '../scenario/sessions.js';
import { mkdirDurable } from '../core/durable.js';
import { Store } from '../store/store.js';
import { neededBytes } from '../store/check/needed-bytes.js';
import type { Progress } from './progress.js';
import type { RunPaths } from './run-folder.js';
import { runCycles, type RunControl, type RunResult } from './runner.js';
import type { FreshNonces } from './fresh-nonce.js';
import { sessionJournal, type SessionEnd } from './session-journal.js';
import { storeTally } from './store-tally.js';
import { CrashBarrier } from '../nemesis/crash-barrier.js';
import { MemoryPressure } from '../nemesis/memory-pressure.js';
import { ABORT_SESSION, injectedSessionAbort, injectedSessionSkew } from './test-faults.js';

/** Session `index`'s folders inside run folder `run` (its journal and run folder are the run's). */
export function sessionPaths(run: RunPaths, index: number): RunPaths {
  const dir = path.join(run.dir, 'sessions', String(index));
  return {
    ...run,
    store: path.join(dir, 'store'),
    session: path.join(dir, 'workspace'),
    scratch: path.join(dir, 'scratch'),
    hostLog: path.join(dir, 'hosts.log'),
    runLog: path.join(dir, 'run.log'),
  };
}

/** Create session `index`'s folders, its store's packs a link to the run's shared store/packs (kept when there). */
export function prepareSession(run: RunPaths, paths: RunPaths): void {
  const shared = path.join(run.store, 'packs');
  mkdirDurable(shared);
  mkdirDurable(paths.store);
  mkdirSync(paths.scratch, { recursive: true, mode: 0o700 });
  const link = path.join(paths.store, 'packs');
  if (!existsSync(link)) symlinkSync(path.relative(paths.store, shared), link); // a continued run's is there
}

/** How each session of a continued run goes on (continue-sessions.ts); absent for a new run. */
export interface SessionsResume {
  /** Per session index: its cycles still to run, how its first starts, the boot nonces its journal recorded. */
  sessions: { cycles: number[]; firstStart: 'boot' | 'restore'; nonces: FreshNonces }[];
}

/** One progress for the run: the sessions' `total` cycles counted together, started and finished once. */
function sharedProgress(progress: Progress, sessions: number, total: number): Progress {
  let started = 0;
  let finished = 0;
  return {
    startSamples: (n) => progress.startSamples(n),
    sample: (ms) => progress.sample(ms),
    start: () => {
      if (started++ === 0) progress.start(total);
    },
    cycle: (e) => progress.cycle(e),
    finish: () => {
      if (++finished === sessions) progress.finish();
    },
  };
}

/**
 * The run's store tally: its sessions' stores summed (their chunks are in the one shared packs folder, each written
 * once), with the bytes each session's checkpoints need counted once per session beside it (apartBytes: the stores
 * of their own they would otherwise have).
 */
function pooledTally(run: RunPaths, all: readonly RunPaths[]): StoreTally | undefined {
  const stores: Store[] = [];
  try {
    for (const p of all) stores.push(Store.open(p.store, { purpose: 'run tally' }));
    // each store's manifests read once, for its tally and for what it needs apart
    const scans = stores.map((s) => {
      s.refresh();
      return s.scan();
    });
    const tallies = stores.map((s, i) => storeTally(s, scans[i]));
    if (tallies.some((t) => t === undefined)) return undefined;
    const apart = neededBytes(
      path.join(run.store, 'packs'),
      scans.map((s) => s.manifests),
    );
    const sum = (k: 'checkpoints' | 'logicalBytes' | 'storedBytes'): number => tallies.reduce((s, t) => s + t![k], 0);
    return {
      checkpoints: sum('checkpoints'),
      logicalBytes: sum('logicalBytes'),
      storedBytes: sum('storedBytes'),
      apartBytes: apart.reduce((s, b) => s + b, 0),
    };
  } catch {
    return undefined; // run-end goes without the tally, as a one-session run's does on a failing disk
  } finally {
    for (const s of stores) s.close();
  }
}

/** The run's status from its sessions' (complete only when every session is; an abort wins, then a stop). */
function runStatus(ends: readonly (SessionEnd | undefined)[]): { status: RunEndEvent['status']; reason?: string } {
  const aborted = ends.map((e, i) => [e, i] as const).filter(([e]) => e === undefined || e.status === 'aborted');
  if (aborted.length > 0) {
    const reason = aborted.map(([e, i]) => `session ${i}: ${e?.reason ?? 'ended without a run-end'}`).join('; ');
    return { status: 'aborted', reason };
  }
  const other = ends.find((e) => e!.status !== 'complete');
  return { status: other?.status ?? 'complete' };
}

/** Run `cycles` in every one of the scenario's sessions at once (each boots first); the run's result. */
export async function runSessions(
  opts: RunControl,
  run: RunPaths,
  journal: JournalWriter,
  scenario: Scenario,
  cycles: number[],
  bootSamples: readonly number[],
  resume?: SessionsResume,
): Promise<RunResult> {
  const n = scenario.sessions;
  const all = Array.from({ length: n }, (_, i) => sessionPaths(run, i));
  all.forEach((p) => prepareSession(run, p));
  const ends: (SessionEnd | undefined)[] = Array.from({ length: n }, () => undefined);
  const own = (i: number) => resume?.sessions[i] ?? { cycles, firstStart: 'boot' as const, nonces: undefined };
  const total = all.reduce((sum, _p, i) => sum + own(i).cycles.length, 0);
  const progress = sharedProgress(opts.progress, n, total);
  // boot samples first, in session 0's folder: the sessions then start together, none delayed by them
  const sampled = await Promise.allSettled(
    bootSamples.length === 0
      ? []
      : [
          runCycles(
            { ...opts, decide: undefined },
            all[0]!,
            sessionJournal(journal, 0, () => {}),
            scenario,
            [],
            'boot',
            bootSamples,
          ),
        ],
  );
  if (sampled[0]?.status === 'rejected') {
    const reason = sampled[0].reason instanceof Error ? sampled[0].reason.message : String(sampled[0].reason);
    journal.append({ type: 'run-end', status: 'aborted', cycles: 0, reason: `boot samples: ${reason}` });
    journal.close();
    throw sampled[0].reason;
  }
  mkdirSync(all[0]!.scratch, { recursive: true, mode: 0o700 }); // a runner loop removes its scratch when it ends
  // the sessions meet at each host crash, checkpoint storm and memory squeeze the run's seed plans (crash-barrier.ts)
  const meets = scenario.faults.some((f) => MEETING_FAULTS.includes(f.kind));
  const barrier = meets ? new CrashBarrier(scenario, journal) : null;
  const squeeze = await MemoryPressure.start(scenario, journal, path.basename(run.dir));
  if (squeeze) squeeze.attach(barrier!);
  const crashes = all.map((_, i) => barrier?.member(i));
  const session = async (paths: RunPaths, i: number): Promise<RunResult> => {
    const mine = own(i);
    const abortAfter = injectedSessionAbort(mine.cycles, i); // test-only: this session's loop dies after its first cycle
    const journaled = sessionJournal(journal, i, (e) => (ends[i] = e));
    const ran = await runCycles(
      {
        ...opts,
        progress,
        decide: undefined,
        ...(crashes[i] ? { crash: crashes[i] } : {}),
        ...(squeeze ? { squeeze } : {}),
      },
      paths,
      journaled,
      injectedSessionSkew(sessionScenario(scenario, i), i),
      abortAfter ?? mine.cycles,
      mine.firstStart,
      [],
      mine.nonces,
    );
    if (abortAfter === null) return ran;
    ends[i] = { status: 'aborted', cycles: ran.cycles, reason: `injected abort (${ABORT_SESSION}, test-only)` };
    throw new Error(ends[i].reason);
  };
  const settled = await Promise.allSettled(all.map((p, i) => session(p, i).finally(() => crashes[i]?.leave())));
  await squeeze?.close(); // every host is reaped: the run's memory cgroup goes
  const done = ends.reduce((s, e) => s + (e?.cycles ?? 0), 0);
  const { status, reason } = runStatus(ends);
  const store = pooledTally(run, all);
  journal.append({
    type: 'run-end',
    status,
    cycles: done,
    ...(reason !== undefined ? { reason } : {}),
    ...(store ? { store } : {}),
  });
  journal.close();
  rmSync(run.scratch, { recursive: true, force: true }); // the sessions' hosts used their own
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return { runDir: run.dir, status, cycles: done };
}
