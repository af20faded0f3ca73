// The store's writer lock: one writer (a session host) or one gc at a time. A lock left by a process that died
// (SIGKILLed hosts leave theirs) is stale and broken by the next taker; "alive" means the recorded PID runs and has the
// recorded start time, so a recycled PID does not keep a dead writer's lock alive.
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.js';
import { fsyncDir } from '../core/durable.js';
import { readProcStat } from '../core/proc.js';

export const LOCK_FILE = 'lock';

interface LockBody {
  pid: number;
  /** Process start time, field 22 of /proc/<pid>/stat (clock ticks since boot); null where /proc is not available. */
  start: string | null;
  purpose: string;
  at: string;
}

/** Start time of a running process; null when it does not exist or is a zombie (dead, not yet reaped). */
function processStart(pid: number): string | null {
  const stat = readProcStat(pid);
  return stat === null || stat.state === 'Z' || stat.state === 'X' ? null : stat.startTime;
}

const hasProc = processStart(process.pid) !== null;

function alive(body: LockBody): boolean {
  if (hasProc) return body.start !== null && processStart(body.pid) === body.start;
  try {
    process.kill(body.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readBody(file: string): LockBody | null {
  try {
    const b = JSON.parse(readFileSync(file, 'utf8')) as LockBody;
    return typeof b.pid === 'number' ? b : null;
  } catch {
    return null;
  }
}

/** The store is in use by a live writer or gc. Exit 3: a usage problem (stop the other process first). */
export class StoreBusyError extends InputError {}

export class StoreLock {
  private released = false;

  private constructor(private readonly file: string) {}

  /** Take the lock of store `dir`, breaking a stale one; throws StoreBusyError when a live process holds it. */
  static acquire(dir: string, purpose: string): StoreLock {
    const file = path.join(dir, LOCK_FILE);
    const body: LockBody = {
      pid: process.pid,
      start: processStart(process.pid),
      purpose,
      at: new Date().toISOString(),
    };
    for (let attempt = 0; attempt < 5; attempt++) {
      let fd: number;
      try {
        fd = openSync(file, 'wx', 0o644);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const holder = readBody(file);
        if (holder && holder.pid !== process.pid && alive(holder)) {
          throw new StoreBusyError(
            `store ${dir} is in use by PID ${holder.pid} (${holder.purpose}, since ${holder.at}); stop it first`,
          );
        }
        if (holder === null && attempt === 0) {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); // a taker may be writing it right now
          continue;
        }
        // Stale (or our own from before a fork): move it aside atomically, so of two breakers only one removes it.
        const aside = `${file}.stale-${process.pid}`;
        try {
          renameSync(file, aside);
          rmSync(aside, { force: true });
        } catch {
          /* another breaker won the rename */
        }
        continue;
      }
      try {
        writeSync(fd, JSON.stringify(body));
      } finally {
        closeSync(fd);
      }
      fsyncDir(dir);
      return new StoreLock(file);
    }
    throw new StoreBusyError(`store ${dir}: could not take its lock (${file}) after 5 attempts`);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    const holder = readBody(this.file);
    if (holder?.pid === process.pid) rmSync(this.file, { force: true });
  }
}
