// Reading a journal: line by line (a journal of any length streams in bounded memory), tolerating a torn last
// line and naming any corrupt line before it.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { InputError, IntegrityError } from './errors.js';
import { JOURNAL_SCHEMA_VERSION, type JournalEvent } from './events.js';

export interface JournalRead {
  events: JournalEvent[];
  /** Set when the last line was torn (no newline or not JSON) and was dropped. */
  tornTail: string | null;
}

/** Line-at-a-time journal parser: a bad line is held until the next line proves it was not the last one. */
class LineParser {
  private lineNo = 0;
  private pending: { line: string; lineNo: number } | null = null;

  constructor(
    private readonly file: string,
    private readonly onEvent: (e: JournalEvent) => void,
  ) {}

  /** One line; `complete` is false only for text after the final newline. */
  line(line: string, complete: boolean): void {
    this.lineNo++;
    if (this.pending) {
      throw new IntegrityError(
        `journal ${this.file} line ${this.pending.lineNo} is corrupt (not a JSON event): ${JSON.stringify(this.pending.line.slice(0, 80))}; only the last line may be torn`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const ok = typeof parsed === 'object' && parsed !== null && typeof (parsed as { type?: unknown }).type === 'string';
    if (!ok || !complete) {
      this.pending = { line, lineNo: this.lineNo };
      return;
    }
    const ev = parsed as JournalEvent;
    if (ev.schemaVersion !== JOURNAL_SCHEMA_VERSION) {
      throw new IntegrityError(`journal ${this.file} line ${this.lineNo}: schemaVersion ${String(ev.schemaVersion)} is not supported (expected ${JOURNAL_SCHEMA_VERSION})`);
    }
    this.onEvent(ev);
  }

  /** The dropped torn last line, if any. */
  end(): string | null {
    return this.pending?.line ?? null;
  }
}

/** Parse journal text. A torn last line is dropped and reported; a bad line anywhere else is an IntegrityError naming it. */
export function parseJournal(text: string, file: string): JournalRead {
  const events: JournalEvent[] = [];
  const parser = new LineParser(file, (e) => events.push(e));
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  for (const l of lines) parser.line(l, true);
  if (tail.length > 0) parser.line(tail, false);
  return { events, tornTail: parser.end() };
}

const CHUNK = 8 << 20;

/** Stream a journal file event by event (never the whole file in memory); returns the dropped torn tail, if any. */
export function streamJournal(file: string, onEvent: (e: JournalEvent) => void): { tornTail: string | null } {
  if (!existsSync(file)) throw new InputError(`journal ${file} does not exist (is this a run folder made by "soak run"?)`);
  const parser = new LineParser(file, onEvent);
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
        parser.line(data.toString('utf8', start, nl), true);
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0) parser.line(carry.toString('utf8'), false);
  } finally {
    closeSync(fd);
  }
  return { tornTail: parser.end() };
}

/** Read a whole journal file into memory (small journals, tests); streamJournal for long ones. */
export function readJournal(file: string): JournalRead {
  const events: JournalEvent[] = [];
  const { tornTail } = streamJournal(file, (e) => events.push(e));
  return { events, tornTail };
}
