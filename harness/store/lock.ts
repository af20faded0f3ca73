// The store's locks (restic's model): one file per holder in locks/, with its PID and process start time. Shared
// locks (readers, restorers, the runner's run-long lease) coexist; a writer lock excludes other writers; an exclusive
// lock (gc) excludes everyone. A taker creates its file first and then checks the others, so of two racers at least
// one sees the other: an exclusive taker refuses at once, shared and writer takers wait a little for it to go.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { mkdirDurable, tempMaker, writeFileAtomic } from '../core/durable.js';
import { sleepSync } from '../core/clock.js';
import { InputError } from '../core/errors.js';
import { processStart, sameProcessAlive } from '../core/proc.js';

/** The folder of lock files inside a store. */
export const LOCKS_DIR = 'locks';

/** shared: relies on the store's contents; writer: also commits checkpoints (one at a time); exclusive: gc. */
export type LockKind = 'shared' | 'writer' | 'exclusive';

/** What a lock file holds. */
export interface LockBody {
  kind: LockKind;
  pid: number;
  /** Process start time, field 22 of /proc/<pid>/stat (clock ticks since boot); null where /proc is not available. */
  start: string | null;
  purpose: string;
  at: string;
}

/** A lock file as found in locks/: its name and body (null: unreadable, which is never taken for stale). */
export interface FoundLock {
  file: string;
  body: LockBody | null;
}

/** The store is in use by a live process whose lock conflicts. Exit 3: a usage problem (stop the other process first). */
export class StoreBusyError extends InputError {}

/** True while the lock's holder runs: same PID and same start time (a recycled PID is another process). */
export function holderAlive(body: LockBody): boolean {
  return sameProcessAlive(body);
}

/** A lock's temp name as writeFileAtomic makes it: `.<kind>-<pid>-<id>.json.tmp-<maker>-<random>` (core/durable.ts). */
const LOCK_TEMP = /^\.(?:shared|writer|exclusive)-\d+-[0-9a-f]+\.json\./;

/**
 * Remove the temp files of lock takers that died while writing their lock (the maker its name records no longer runs:
 * pid and start time); never one of a live taker (it may be writing its lock now) nor a name that records no maker.
 * Returns the names removed. gc calls it.
 */
export function sweepDeadLockTemps(dir: string): string[] {
  const locks = path.join(dir, LOCKS_DIR);
  let names: string[];
  try {
    names = readdirSync(locks);
  } catch {
    return [];
  }
  const dead = names.filter((f) => {
    const maker = LOCK_TEMP.test(f) ? tempMaker(f) : null;
    return maker !== null && !sameProcessAlive(maker);
  });
  for (const f of dead) rmSync(path.join(locks, f), { force: true });
  return dead;
}

/** Whether two lock kinds may be held at once. */
export function conflicts(a: LockKind, b: LockKind): boolean {
  return a === 'exclusive' || b === 'exclusive' || (a === 'writer' && b === 'writer');
}

function readBody(file: string): LockBody | null {
  try {
    const b = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockBody>;
    const kindOk = b.kind === 'shared' || b.kind === 'writer' || b.kind === 'exclusive';
    return kindOk && typeof b.pid === 'number' ? (b as LockBody) : null;
  } catch {
    return null;
  }
}

/** Every lock file in store `dir` (temp files of takers still writing theirs are not locks yet). */
export function readLocks(dir: string): FoundLock[] {
  const locks = path.join(dir, LOCKS_DIR);
  let names: string[];
  try {
    names = readdirSync(locks).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
  } catch {
    return [];
  }
  return names.sort().map((f) => ({ file: path.join(locks, f), body: readBody(path.join(locks, f)) }));
}

function describeHolder(l: FoundLock): string {
  if (!l.body) return `an unreadable lock file ${l.file} (remove it once no process uses the store)`;
  return `PID ${l.body.pid} (${l.body.purpose}, ${l.body.kind} lock since ${l.body.at}; ${l.file})`;
}

/** One lock this process holds on a store, until `release` (or until the process dies, which makes it stale). */
export class StoreLock {
  private released = false;

  private constructor(
    readonly file: string,
    readonly kind: LockKind,
  ) {}

  /**
   * Take a `kind` lock on store `dir`. Stale locks (their holder is dead) are removed once no live one
   * conflicts. Throws StoreBusyError naming the live holders' PIDs: at once for an exclusive lock, after `waitMs`
   * (default 10 s) of waiting for them to go for the others. `own`: locks the caller already holds (an upgrade).
   */
  static acquire(
    dir: string,
    kind: LockKind,
    purpose: string,
    waitMs = kind === 'exclusive' ? 0 : 10_000,
    own: readonly StoreLock[] = [],
  ): StoreLock {
    const locks = path.join(dir, LOCKS_DIR);
    mkdirDurable(locks);
    const body: LockBody = {
      kind,
      pid: process.pid,
      start: processStart(process.pid),
      purpose,
      at: new Date().toISOString(),
    };
    const name = `${kind}-${process.pid}-${randomBytes(6).toString('hex')}.json`;
    const file = path.join(locks, name);
    // Written whole and durably (temp, fsync, rename, fsync locks/): a checker never reads half a lock, and a power
    // cut cannot leave an empty lock file behind, which would read as unreadable (never stale) and block the store.
    writeFileAtomic(file, JSON.stringify(body), { always: true }); // not the store's data: the no-fsync switch spares it
    const deadline = Date.now() + waitMs;
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      const mine = (f: string): boolean => f === file || own.some((o) => o.file === f);
      const others = readLocks(dir).filter((l) => !mine(l.file) && (!l.body || conflicts(kind, l.body.kind)));
      const live = others.filter((l) => !l.body || holderAlive(l.body));
      if (live.length === 0) {
        // Dead holders' locks of any kind go (they can never come back), so locks/ stays small over a long soak.
        for (const l of readLocks(dir))
          if (!mine(l.file) && l.body && !holderAlive(l.body)) rmSync(l.file, { force: true });
        return new StoreLock(file, kind);
      }
      if (Date.now() >= deadline) {
        rmSync(file, { force: true });
        throw new StoreBusyError(
          `store ${dir} is in use by ${live.map(describeHolder).join(', ')}; cannot take a ${kind} lock for ${purpose}: stop it first`,
        );
      }
      sleepSync(wait);
    }
  }

  /** Remove this lock's file (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    rmSync(this.file, { force: true });
  }
}
