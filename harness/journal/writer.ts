// The run journal's writer: append-only NDJSON, one fsync per event, each line in its codec field order (reader.ts reads).
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { encodeEvent } from './codec.js';
import { JOURNAL_SCHEMA_VERSION, type EventInput, type JournalEvent } from './events.js';

/** Appends events durably: each line is written and fsynced before append() returns. */
export class JournalWriter {
  private fd: number;

  /** `clock` returns ms since the run started (monotonic). */
  constructor(
    readonly file: string,
    private readonly clock: () => number,
  ) {
    dropTornTail(file);
    this.fd = openSync(file, 'a', 0o644);
  }

  /** Write `event` (stamped with schemaVersion and t, fields in codec order), fsync, and return it as written. */
  append(event: EventInput): JournalEvent {
    const full = { schemaVersion: JOURNAL_SCHEMA_VERSION, t: round3(this.clock()), ...event } as JournalEvent;
    writeSync(this.fd, `${encodeEvent(full)}\n`);
    fsyncSync(this.fd);
    return full;
  }

  close(): void {
    closeSync(this.fd);
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

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export { parseJournal, readJournal, streamJournal, type JournalRead } from './reader.js';
