// The run folder runs/<id>/: how a run is named, creating it (never reusing one), the `latest` link, and its layout.
import { existsSync, mkdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { JOURNAL_FILE } from '../analysis/load-runs.js';
import { RunLock } from './run-lock.js';
import { slug } from '../core/slug.js';
import type { Shard } from '../scenario/shard.js';

/** Longest scenario-name part of a run id, so ids stay short enough to type. */
const RUN_SLUG_MAX = 40;

/** Where everything of one run lives inside its folder. */
export interface RunPaths {
  dir: string;
  journal: string;
  store: string;
  /** Survives host restarts within one session (the process target's workspace). */
  session: string;
  /** Private (0700) work dirs of hosts; removed when the runner ends. */
  scratch: string;
  /** The hosts' stderr. */
  hostLog: string;
  /** The runner's own log. */
  runLog: string;
}

/** The layout of run folder `dir`. */
export function runPaths(dir: string): RunPaths {
  return {
    dir,
    journal: path.join(dir, JOURNAL_FILE),
    store: path.join(dir, 'store'),
    session: path.join(dir, 'session'),
    scratch: path.join(dir, 'scratch'),
    hostLog: path.join(dir, 'hosts.log'),
    runLog: path.join(dir, 'run.log'),
  };
}

/** `<yyyymmddThhmmss>-<scenario slug>-s<seed>[-shard<i>of<n>]`, the time in UTC. */
export function runId(scenario: { name: string; seed: number }, shard: Shard | undefined, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..+/, '');
  return `${stamp}-${slug(scenario.name, RUN_SLUG_MAX)}-s${scenario.seed}${shard ? `-shard${shard.index}of${shard.count}` : ''}`;
}

/**
 * Create a new run folder under `runsDir` (suffix -2, -3... when the id is taken), lock it for `purpose` before
 * anything is written in it (run-lock.ts: one runner per folder) and point `latest` at it.
 */
export function createRunFolder(
  runsDir: string,
  scenario: { name: string; seed: number },
  shard?: Shard,
  now = new Date(),
  purpose = 'soak run',
): { id: string; paths: RunPaths; lock: RunLock } {
  mkdirSync(runsDir, { recursive: true });
  const base = runId(scenario, shard, now);
  for (let k = 1; ; k++) {
    const id = k === 1 ? base : `${base}-${k}`;
    const dir = path.join(runsDir, id);
    if (existsSync(dir)) continue;
    try {
      mkdirSync(dir); // fails if another runner made it since: then the next suffix
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    const lock = RunLock.acquire(dir, purpose);
    linkLatest(runsDir, id);
    return { id, paths: runPaths(dir), lock };
  }
}

/** Point runsDir/latest at run `id` (best effort: the link is a convenience only). */
export function linkLatest(runsDir: string, id: string): void {
  const link = path.join(runsDir, 'latest');
  try {
    unlinkSync(link);
  } catch {
    // no previous link
  }
  try {
    symlinkSync(id, link);
  } catch {
    // a link is a convenience only
  }
}

/** Start the run's scratch folder empty (a dead runner's hosts may have left theirs). */
export function resetScratch(paths: RunPaths): void {
  rmSync(paths.scratch, { recursive: true, force: true });
  mkdirSync(paths.scratch, { recursive: true, mode: 0o700 });
}
