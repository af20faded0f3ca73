// One runner per run folder: the lock file runner.lock holds the writer's PID and process start time (the store
// lock's identity rule, core/proc.ts). It is created whole with link(2) (core/durable.ts), so of two takers exactly
// one wins. A lock whose holder is dead (a SIGKILLed runner) is broken under a break file named for that holder and
// created the same way: only the taker holding it may remove a lock of that holder, after reading it again, so two
// takers racing for one stale lock never both win. Readers (report, check, gates, watch) take no lock.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createFileExclusive } from '../core/durable.js';
import { sleepSync } from '../core/clock.js';
import { InputError } from '../core/errors.js';
import { processStart, sameProcessAlive } from '../core/proc.js';

/** The lock's name inside a run folder (never copied into a merged folder or a report: they are built, not copied). */
export const RUN_LOCK_FILE = 'runner.lock';
const BREAK_PREFIX = `${RUN_LOCK_FILE}.break-`;

/** What the lock file (and a break file) holds. */
export interface RunLockBody {
  pid: number;
  /** Process start time (/proc/<pid>/stat field 22); null where /proc is not available. */
  start: string | null;
  /** What holds it: `soak run`, `soak run --resume`, `soak demo`. */
  purpose: string;
  at: string;
}

/** The run folder is held by a live process: exit 3 (stop that process first). */
export class RunBusyError extends InputError {}

/** The body at `file`: undefined when there is no file, null when it cannot be read as a lock. */
function readBody(file: string): RunLockBody | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return null;
  }
  try {
    const b = JSON.parse(text) as Partial<RunLockBody>;
    const pidOk = typeof b.pid === 'number' && Number.isInteger(b.pid) && b.pid > 0;
    const textOk = typeof b.purpose === 'string' && typeof b.at === 'string';
    return pidOk && textOk && (typeof b.start === 'string' || b.start === null) ? (b as RunLockBody) : null;
  } catch {
    return null;
  }
}

/** A lock's own text as a message may quote it: control and bidirectional characters shown as '?'. */
const printable = (text: string): string =>
  text.slice(0, 80).replace(/[\p{Cc}\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/gu, '?');

/** A holder's identity, as a break file's name carries it. */
const identity = (b: RunLockBody): string => `${b.pid}-${b.start ?? 'x'}`;

/**
 * Remove the lock `file` if it is still the stale lock of `stale` (exported for its race test: a taker that read the
 * stale lock before another took it over must leave the new lock alone). Under break file `<lock>.break-<id>-<k>`: k counts
 * up past break files whose own takers died mid-break (never reused while one of them lives). 'busy': a live taker is
 * breaking it now.
 */
export function breakStale(file: string, stale: RunLockBody, me: string): 'broken' | 'busy' {
  const id = identity(stale);
  for (let k = 1; ;) {
    const marker = `${file}.break-${id}-${k}`;
    if (!createFileExclusive(marker, me)) {
      const other = readBody(marker);
      if (other === undefined) continue; // its taker just finished: try this generation again
      if (other !== null && sameProcessAlive(other)) return 'busy';
      k++; // its taker died while breaking: the next generation
      continue;
    }
    try {
      const now = readBody(file);
      if (now && identity(now) === id) rmSync(file, { force: true });
    } finally {
      rmSync(marker, { force: true });
    }
    return 'broken';
  }
}

/** Remove break files of takers that died mid-break (safe once a live lock is held: their stale lock is gone). */
function sweepDeadBreakers(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(BREAK_PREFIX)) continue;
    const body = readBody(path.join(dir, name));
    if (body === null || (body !== undefined && !sameProcessAlive(body))) rmSync(path.join(dir, name), { force: true });
  }
}

function describe(dir: string, holder: RunLockBody): string {
  return (
    `run folder ${dir} is in use by a live runner: PID ${holder.pid} (${printable(holder.purpose)}, since ${printable(holder.at)}); ` +
    `stop it with \`kill -TERM ${holder.pid}\` (it stops after the current cycle) or let it end, then try again`
  );
}

/** The run folder lock this process holds, until release() (or until it dies, which leaves it stale). */
export class RunLock {
  private released = false;

  private constructor(
    readonly file: string,
    private readonly text: string,
  ) {}

  /**
   * Take run folder `dir`'s lock for `purpose`, taking over a stale one. Throws RunBusyError naming the live holder's
   * PID and how to stop it; or, after `waitMs` of another taker breaking a stale lock, naming that.
   */
  static acquire(dir: string, purpose: string, waitMs = 5_000): RunLock {
    const file = path.join(dir, RUN_LOCK_FILE);
    const body: RunLockBody = {
      pid: process.pid,
      start: processStart(process.pid),
      purpose,
      at: new Date().toISOString(),
    };
    const text = JSON.stringify(body);
    const deadline = Date.now() + waitMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      if (createFileExclusive(file, text)) {
        sweepDeadBreakers(dir);
        return new RunLock(file, text);
      }
      const holder = readBody(file);
      if (holder === null)
        throw new RunBusyError(
          `run folder ${dir} has an unreadable lock file ${file}: remove it once no soak runs in this folder`,
        );
      if (holder !== undefined && sameProcessAlive(holder)) throw new RunBusyError(describe(dir, holder));
      // gone since (released), or stale: try to create it again; a stale one is broken first
      const busy = holder !== undefined && breakStale(file, holder, text) === 'busy';
      if (Date.now() >= deadline)
        throw new RunBusyError(`run folder ${dir}: another process is taking over its lock ${file} now; try again`);
      if (busy) sleepSync(wait);
    }
  }

  /** Remove the lock file if it is still this one (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      if (readFileSync(this.file, 'utf8') === this.text) rmSync(this.file, { force: true });
    } catch {
      // already gone
    }
  }
}
