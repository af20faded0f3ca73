// The run journal: append-only NDJSON, one fsync per event; the reader tolerates a torn last line.
import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { InputError, IntegrityError } from './errors.js';
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

  append(event: EventInput): JournalEvent {
    const full = { schemaVersion: JOURNAL_SCHEMA_VERSION, t: round3(this.clock()), ...event } as JournalEvent;
    writeSync(this.fd, `${JSON.stringify(full)}\n`);
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

export interface JournalRead {
  events: JournalEvent[];
  /** Set when the last line was torn (no newline or not JSON) and was dropped. */
  tornTail: string | null;
}

/** Parse journal text. A torn last line is dropped and reported; a bad line anywhere else is an IntegrityError naming it. */
export function parseJournal(text: string, file: string): JournalRead {
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n') || text.length === 0;
  if (endsClean) lines.pop();
  const events: JournalEvent[] = [];
  let tornTail: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const isLast = i === lines.length - 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const ok = typeof parsed === 'object' && parsed !== null && typeof (parsed as { type?: unknown }).type === 'string';
    if (!ok || (isLast && !endsClean)) {
      if (isLast) {
        tornTail = line;
        continue;
      }
      throw new IntegrityError(
        `journal ${file} line ${i + 1} is corrupt (not a JSON event): ${JSON.stringify(line.slice(0, 80))}; only the last line may be torn`,
      );
    }
    const ev = parsed as JournalEvent;
    if (ev.schemaVersion !== JOURNAL_SCHEMA_VERSION) {
      throw new IntegrityError(`journal ${file} line ${i + 1}: schemaVersion ${String(ev.schemaVersion)} is not supported (expected ${JOURNAL_SCHEMA_VERSION})`);
    }
    events.push(ev);
  }
  return { events, tornTail };
}

/** Read a journal file. */
export function readJournal(file: string): JournalRead {
  if (!existsSync(file)) throw new InputError(`journal ${file} does not exist (is this a run folder made by "soak run"?)`);
  return parseJournal(readFileSync(file, 'utf8'), file);
}
