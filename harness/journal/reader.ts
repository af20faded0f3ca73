// Reading a journal: line by line (a journal of any length streams in bounded memory), tolerating a torn last
// line, naming any corrupt line before it and any line that breaks its event's schema (schema.ts), field by field, and
// holding the events to the journal's protocol (protocol.ts: no event from its first error on reaches the reader).
// A long journal can be read in parts (byte ranges cut at newlines).
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { InputError, JournalLineError } from '../core/errors.js';
import { JOURNAL_SCHEMA_VERSION, type JournalEvent } from './events.js';
import { eventProblems } from './schema.js';
import { sessionCycleKey } from './session-key.js';
import { JournalProtocol } from './protocol.js';

export interface JournalRead {
  events: JournalEvent[];
  /** Set when the last line was torn (no newline or not JSON) and was dropped. */
  tornTail: string | null;
}

/** Asks the journal's protocol whether an event (its type, time and cycle id) may be counted (protocol.ts). */
export type Admit = (type: string, t: number, cycle: number) => boolean;

/**
 * A reader that takes some lines straight from their bytes (analysis/fastpath/line-reader.ts): true when it consumed the line, false
 * to have it JSON.parsed as usual. It must accept only lines JSON.parse would read as valid events (schema.ts), so that
 * a line breaking a rule is declined and named by the schema, exactly as without the fast path; and it counts a line
 * it takes only once `admit` says so.
 */
export type FastLine = (bytes: Buffer, start: number, end: number, admit: Admit) => boolean;

/** Line-at-a-time journal parser: a bad line is held until the next line proves it was not the last one. */
class LineParser {
  /** Lines read so far. */
  lines = 0;
  /** Of those, lines the fast path took. */
  fastLines = 0;
  private pending: { line: string; lineNo: number } | null = null;
  /** The protocol's verdict on a fast line (it is line `lines + 1` while the fast path reads it). */
  private readonly admitFast: Admit = (type, t, cycle) => this.protocol.admit(this.lines + 1, type, t, cycle, false);

  constructor(
    private readonly file: string,
    private readonly onEvent: (e: JournalEvent) => void,
    private readonly fast: FastLine | null,
    private readonly protocol: JournalProtocol,
  ) {}

  /** One line of bytes[start, end); `complete` is false only for text after the final newline. */
  bytes(bytes: Buffer, start: number, end: number, complete: boolean): void {
    // The fast path sees only complete lines after a good one: a torn or corrupt line still goes through line().
    if (complete && this.pending === null && this.fast?.(bytes, start, end, this.admitFast)) {
      this.lines++;
      this.fastLines++;
      return;
    }
    this.line(bytes.toString('utf8', start, end), complete);
  }

  /** One line; `complete` is false only for text after the final newline. */
  line(line: string, complete: boolean): void {
    this.lines++;
    if (this.pending) throw this.corrupt();
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    const ok = typeof parsed === 'object' && parsed !== null && typeof (parsed as { type?: unknown }).type === 'string';
    if (!ok || !complete) {
      this.pending = { line, lineNo: this.lines };
      return;
    }
    const version = (parsed as { schemaVersion?: unknown }).schemaVersion;
    if (version !== JOURNAL_SCHEMA_VERSION) {
      throw new JournalLineError(
        this.file,
        this.lines,
        `: schemaVersion ${String(version)} is not supported (expected ${JOURNAL_SCHEMA_VERSION})`,
      );
    }
    const problems = eventProblems(parsed as { type: string });
    if (problems !== null) throw new JournalLineError(this.file, this.lines, `: ${problems}`);
    const e = parsed as JournalEvent;
    const merged = e.type === 'run-start' && e.mergedFrom !== undefined;
    const key = e.type === 'cycle' ? sessionCycleKey(e.session, e.cycle) : 0;
    const sessions = e.type === 'run-start' ? ((e.scenario as { sessions?: number }).sessions ?? 1) : 1;
    if (this.protocol.admit(this.lines, e.type, e.t, key, merged, e.session, sessions)) this.onEvent(e);
  }

  private corrupt(): JournalLineError {
    const { line, lineNo } = this.pending!;
    return new JournalLineError(
      this.file,
      lineNo,
      ` is corrupt (not a JSON event): ${JSON.stringify(line.slice(0, 80))}; only the last line may be torn`,
    );
  }

  /** The dropped torn last line, if any. When more of the file follows (`last` false), a held bad line is corrupt instead. */
  end(last = true): string | null {
    if (this.pending && !last) throw this.corrupt();
    return this.pending?.line ?? null;
  }
}

/**
 * Parse journal text. A torn last line is dropped and reported; a bad line anywhere else is an IntegrityError naming
 * it; a journal breaking the protocol is a JournalDamagedError naming its first error.
 */
export function parseJournal(text: string, file: string): JournalRead {
  const events: JournalEvent[] = [];
  const parser = new LineParser(file, (e) => events.push(e), null, new JournalProtocol(file, { throwOnError: true }));
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  for (const l of lines) parser.line(l, true);
  if (tail.length > 0) parser.line(tail, false);
  return { events, tornTail: parser.end() };
}

/** Bytes [start, end) of a journal file. */
export interface ByteRange {
  start: number;
  end: number;
}

const BLOCK = 8 << 20;
const NEWLINE = 0x0a;

/**
 * Call `onLine` for every line in `range` of `file` as a range of a reused buffer (read it during the call only),
 * reading blocks of 8 MiB (more for a longer line). `complete` is false only for text after the range's last newline.
 */
function forEachLine(
  file: string,
  range: ByteRange,
  onLine: (bytes: Buffer, start: number, end: number, complete: boolean) => void,
): void {
  const fd = openSync(file, 'r');
  try {
    let buf = Buffer.allocUnsafe(BLOCK);
    let held = 0; // bytes of an unfinished line kept at the front of buf
    for (let at = range.start; at < range.end;) {
      if (held === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
      const n = readSync(fd, buf, held, Math.min(buf.length - held, range.end - at), at);
      if (n === 0) break;
      at += n;
      const data = buf.subarray(0, held + n);
      let start = 0;
      for (let nl = data.indexOf(NEWLINE, start); nl >= 0; nl = data.indexOf(NEWLINE, start)) {
        onLine(buf, start, nl, true);
        start = nl + 1;
      }
      held = data.length - start;
      buf.copyWithin(0, start, data.length);
    }
    if (held > 0) onLine(buf, 0, held, false);
  } finally {
    closeSync(fd);
  }
}

/** What reading (part of) a journal found besides its events. */
export interface StreamedJournal {
  /** The dropped torn last line, if any. */
  tornTail: string | null;
  /** Lines read. */
  lines: number;
  /** Of those, lines the fast path took (the rest were JSON.parsed): its coverage. */
  fastLines: number;
}

/** How to stream a journal: all optional. */
export interface StreamOptions {
  /** Lines it takes are not parsed and not passed to `onEvent`. */
  fast?: FastLine | null;
  /**
   * Only these bytes are read; a bad line at its end is corrupt unless the range ends the file, and line numbers in
   * errors count from the range's start.
   */
  range?: ByteRange;
  /**
   * The protocol the events are held to; the caller reads its errors after the stream (default: one that throws
   * JournalDamagedError at the first error).
   */
  protocol?: JournalProtocol;
}

/** Stream a journal file event by event (never the whole file in memory). */
export function streamJournal(
  file: string,
  onEvent: (e: JournalEvent) => void,
  opts: StreamOptions = {},
): StreamedJournal {
  if (!existsSync(file))
    throw new InputError(`journal ${file} does not exist (is this a run folder made by "soak run"?)`);
  const size = statSync(file).size;
  const { fast = null, range } = opts;
  const protocol = opts.protocol ?? new JournalProtocol(file, { part: (range?.start ?? 0) > 0, throwOnError: true });
  const parser = new LineParser(file, onEvent, fast, protocol);
  const part = range ?? { start: 0, end: size };
  forEachLine(file, part, (bytes, start, end, complete) => parser.bytes(bytes, start, end, complete));
  return { tornTail: parser.end(part.end >= size), lines: parser.lines, fastLines: parser.fastLines };
}

/** Read a whole journal file into memory (small journals, tests); streamJournal for long ones. */
export function readJournal(file: string): JournalRead {
  const events: JournalEvent[] = [];
  const { tornTail } = streamJournal(file, (e) => events.push(e));
  return { events, tornTail };
}

/** Cut `file` into at most `parts` byte ranges of similar size, each ending just after a newline (or at the end). */
export function splitAtNewlines(file: string, parts: number): ByteRange[] {
  const size = statSync(file).size;
  const cuts = [0];
  const fd = openSync(file, 'r');
  try {
    const window = Buffer.allocUnsafe(64 << 10);
    for (let k = 1; k < parts; k++) {
      let at = Math.max(cuts.at(-1)!, Math.floor((size * k) / parts));
      for (let n = readSync(fd, window, 0, window.length, at); n > 0; n = readSync(fd, window, 0, window.length, at)) {
        const nl = window.subarray(0, n).indexOf(NEWLINE);
        if (nl >= 0) {
          if (at + nl + 1 < size) cuts.push(at + nl + 1);
          break;
        }
        at += n;
      }
    }
  } finally {
    closeSync(fd);
  }
  return cuts.map((start, i) => ({ start, end: cuts[i + 1] ?? size }));
}
