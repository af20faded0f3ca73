// The run journal's writer: append-only NDJSON, each line in its codec field order (reader.ts reads), written before
// append() returns and fsynced by group commit in the background (group-commit.ts), so no append stalls on a disk.
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readSync, statSync } from 'node:fs';
import { nowMs } from '../core/clock.js';
import { roundMs } from '../core/round.js';
import { writeAll, type WriteFn } from '../core/durable.js';
import { DiskError, diskErrno, EXIT, SoakError } from '../core/errors.js';
import { encodeEvent } from './codec.js';
import { JOURNAL_SCHEMA_VERSION, type EventInput, type JournalEvent } from './events.js';
import { GroupCommit } from './group-commit.js';

/** When an event happened, if not now: `at` is a monotonic time from core/clock's nowMs() (e.g. when a signal was sent). */
export interface AppendOptions {
  at?: number;
}

/** How a writer writes (a test seam: `write` replaces fs.writeSync, e.g. to write short). */
export interface JournalWriterOptions {
  write?: WriteFn;
}

/**
 * Appends events: each line is in the file (it survives a crash of this process) before append() returns, and
 * durable (fsynced) once durable() resolves or close() returns; fsyncs run in the background, one per group of lines.
 */
export class JournalWriter {
  private fd: number;
  private readonly commits: GroupCommit;
  private readonly write: WriteFn | undefined;
  /** The time of the last line written. */
  private lastT = 0;

  /** `clock` returns ms since the run started (monotonic). */
  constructor(
    readonly file: string,
    private readonly clock: () => number,
    opts: JournalWriterOptions = {},
  ) {
    this.write = opts.write;
    dropTornTail(file);
    this.fd = openSync(file, 'a', 0o644);
    this.commits = new GroupCommit(this.fd);
  }

  /**
   * Write `event` (stamped with schemaVersion and t, fields in codec order; t is `opts.at` on the journal's clock when
   * given) and return it as written, every byte (a short write is continued); its fsync follows in the background.
   * Throws the error of an earlier fsync that failed, or one naming the journal when the write fails.
   */
  append(event: EventInput, opts: AppendOptions = {}): JournalEvent {
    const at = opts.at === undefined ? this.clock() : this.clock() - (nowMs() - opts.at);
    // Never before the line above it (protocol.ts): an event timed `at` a moment just after that line was written
    // could otherwise read a microsecond earlier, the two clock reads above being taken one after the other.
    const t = opts.at === undefined ? roundMs(at) : Math.max(this.lastT, roundMs(at));
    this.lastT = t;
    const full = { schemaVersion: JOURNAL_SCHEMA_VERSION, t, ...event } as JournalEvent;
    this.commits.check();
    try {
      writeAll(this.fd, Buffer.from(`${encodeEvent(full)}\n`), this.write); // a short write(2) is continued
    } catch (err) {
      const errno = diskErrno(err);
      const why = err instanceof Error ? err.message : String(err);
      throw errno !== null
        ? new DiskError(this.file, errno, { cause: err })
        : new SoakError(`cannot append to the journal ${this.file}: ${why}`, EXIT.internal, { cause: err });
    }
    this.commits.written();
    return full;
  }

  /** Resolves once every event appended so far is fsynced. */
  durable(): Promise<void> {
    return this.commits.durable();
  }

  /** fsync what is not yet durable (on this thread) and close the file. */
  close(): void {
    this.commits.close();
  }
}

/** Before appending to a journal a dead writer left, cut its torn last line (no newline) so the next event starts clean. */
function dropTornTail(file: string): void {
  if (!existsSync(file)) return;
  const size = statSync(file).size;
  if (size === 0) return;
  const fd = openSync(file, 'r+');
  try {
    const span = Math.min(size, 1 << 20);
    const tail = Buffer.alloc(span);
    readSync(fd, tail, 0, span, size - span);
    if (tail[span - 1] === 0x0a) return;
    const lastNl = tail.lastIndexOf(0x0a);
    ftruncateSync(fd, lastNl < 0 ? size - span : size - span + lastNl + 1);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export { parseJournal, readJournal, streamJournal, type JournalRead } from './reader.js';
