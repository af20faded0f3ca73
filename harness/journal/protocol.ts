// The journal as a protocol (issue 30): the order of events a runner, the runners that resume it, or `soak merge` can
// write. The first event is the one run-start; run-end closes the journal until a run-resume reopens it (a later
// runner); a cycle id has one outcome (`cycle` event: its cycle-start and the rest may repeat after a resume); times `t`
// never go back (but in a merged journal, whose sources keep their own clocks); an event's `session` names one of the
// run-start's sessions (issue 36: below its scenario's `sessions`). reader.ts holds every journal it reads
// to it: a journal that breaks it is damaged, and no event from its first error on reaches a reader.
import { InputError } from '../core/errors.js';
import { IdLines, type IdLinesPart } from './id-lines.js';
import { sessionCycleName } from './session-key.js';

/** The named journal errors. */
export type ProtocolCode =
  | 'before-run-start'
  | 'run-start-repeated'
  | 'after-run-end'
  | 'cycle-repeated'
  | 'time-backwards'
  | 'session-out-of-range';

/** One error: its line, code, the event type, and what it clashes with (`ref`: an earlier line, 0 when unknown). */
export interface ProtocolError {
  line: number;
  code: ProtocolCode;
  type: string;
  ref: number;
  cycle?: number;
  t?: number;
  refT?: number;
  /** session-out-of-range: the event's session and the run-start's count of sessions. */
  session?: number;
  sessions?: number;
  /** Lines of the same kind in a row it stands for (a part's head, analysis/parallel.ts): 1 when absent. */
  lines?: number;
}

/** What the error says, after "line N: <code>: ". */
export function protocolMessage(e: ProtocolError): string {
  const ref = e.ref > 0 ? ` at line ${e.ref}` : '';
  const more = e.lines !== undefined && e.lines > 1 ? ` (and ${e.lines - 1} more lines after it)` : '';
  switch (e.code) {
    case 'before-run-start':
      return `a ${e.type} event before the journal's run-start (a journal starts with its run-start)${more}`;
    case 'run-start-repeated':
      return `a second run-start (the first${ref}): two journals joined into one?`;
    case 'after-run-end':
      return `a ${e.type} event after the run-end${ref} with no run-resume between (written after its runner ended: two runners on one run folder?)${more}`;
    case 'cycle-repeated':
      return `${sessionCycleName(e.cycle ?? 0)}'s outcome journaled again (first${ref}): two runners on one run folder?`;
    case 'time-backwards':
      return `t ${e.t} is earlier than t ${e.refT}${ref}: events out of order`;
    case 'session-out-of-range':
      return `a ${e.type} event of session ${e.session}, but the run-start${ref} ran ${e.sessions} session${e.sessions === 1 ? '' : 's'} (0 to ${(e.sessions ?? 1) - 1})${more}`;
  }
}

/** A journal that breaks the protocol: exit 3 (the input cannot be analysed; no claim about the system under test). */
export class JournalDamagedError extends InputError {}

type Phase = 'none' | 'open' | 'closed' | 'unknown';
type Mark = 'run-start' | 'run-resume' | 'run-end';
const isMark = (type: string): type is Mark => type === 'run-start' || type === 'run-resume' || type === 'run-end';

/** A later part of a journal read on its own (analysis/parallel.ts): what the parts before it decide. */
export interface ProtocolPart {
  /** Events before its first mark (run-start, run-resume, run-end), judged by the phase the parts before end in. */
  head: { lines: number; line: number; type: string };
  firstMark: { type: Mark; line: number } | null;
  /** The phase it ends in ('unknown': it has no mark), and its last run-end's line (0: none). */
  phase: Phase;
  endLine: number;
  /** Errors it could judge alone, and how many in all. */
  errors: ProtocolError[];
  total: number;
  outcomes: IdLinesPart;
  /** Its first time, its largest, and where a time went back inside it (errors unless the journal is merged). */
  firstT: { t: number; line: number } | null;
  maxT: { t: number; line: number } | null;
  backwards: ProtocolError[];
  /** Sessions above 0 its events named, each with its first line and how many lines (judged once the count is known). */
  sessionLines: [number, { line: number; type: string; lines: number }][];
}

/** Errors kept to be named (all are counted). */
const KEPT = 1000;

/** Holds a journal's events, in order, to the protocol. */
export class JournalProtocol {
  private phase: Phase;
  private merged = false;
  private startLine = 0;
  private endLine = 0;
  private maxT: { t: number; line: number } | null = null;
  private firstT: { t: number; line: number } | null = null;
  private readonly outcomes = new IdLines();
  private readonly kept: ProtocolError[] = [];
  private total = 0;
  private readonly head = { lines: 0, line: 0, type: '' };
  private firstMark: ProtocolPart['firstMark'] = null;
  private readonly backwards: ProtocolError[] = [];
  /** The run-start's scenario sessions (null: no run-start read yet, a part read on its own). */
  private sessions: number | null = null;
  private readonly sessionLines = new Map<number, { line: number; type: string; lines: number }>();

  /**
   * `part`: the events come from the middle of a journal (a part read on its own, appended later with append()).
   * `throwOnError`: throw JournalDamagedError at the first error instead of collecting them.
   */
  constructor(
    readonly file: string,
    private readonly opts: { part?: boolean; throwOnError?: boolean } = {},
  ) {
    this.phase = opts.part ? 'unknown' : 'none';
  }

  /**
   * Judge the next event; false when it must not be counted (it, or an event before it, broke the protocol).
   * `session`: the event's (absent: 0); `sessions`: a run-start's scenario sessions (read on a run-start only).
   */
  admit(line: number, type: string, t: number, cycle: number, merged: boolean, session = 0, sessions = 1): boolean {
    let error: ProtocolError | null = null;
    if (this.phase !== 'unknown') error = this.order(line, type, merged);
    if (type === 'run-start') this.sessions ??= sessions;
    if (session > 0) error ??= this.sessionError(line, type, session);
    else if (!isMark(type)) {
      if (this.head.lines++ === 0) [this.head.line, this.head.type] = [line, type];
    } else {
      this.firstMark = { type, line };
      this.phase = type === 'run-end' ? 'closed' : 'open';
      if (type === 'run-end') this.endLine = line;
    }
    if (type === 'cycle') {
      const first = this.outcomes.see(cycle, line);
      if (first !== 0) error ??= { line, code: 'cycle-repeated', type, ref: first, cycle };
    }
    if (this.phase !== 'none' && !this.merged && this.maxT !== null && t < this.maxT.t) {
      const back: ProtocolError = { line, code: 'time-backwards', type, ref: this.maxT.line, t, refT: this.maxT.t };
      if (!this.opts.part) error ??= back;
      else if (this.backwards.length < KEPT) this.backwards.push(back);
    }
    if (this.maxT === null || t >= this.maxT.t) this.maxT = { t, line };
    this.firstT ??= { t, line };
    if (error) this.record(error);
    return this.total === 0 || this.opts.part === true;
  }

  /** The error of an event of `session` (> 0) past the run-start's sessions; unknown yet (a part): kept for append(). */
  private sessionError(line: number, type: string, session: number): ProtocolError | null {
    if (this.sessions === null) {
      const seen = this.sessionLines.get(session);
      if (seen) seen.lines++;
      else this.sessionLines.set(session, { line, type, lines: 1 });
      return null;
    }
    if (session < this.sessions) return null;
    return { line, code: 'session-out-of-range', type, ref: this.startLine, session, sessions: this.sessions };
  }

  /** The error `type` at `line` makes in the current phase (null: none), moving the phase on. */
  private order(line: number, type: string, merged: boolean): ProtocolError | null {
    const error = (code: ProtocolCode, ref = 0): ProtocolError => ({ line, code, type, ref });
    if (this.phase === 'none' && type !== 'run-start') return error('before-run-start');
    if (type === 'run-start') {
      if (this.phase !== 'none') return error('run-start-repeated', this.startLine);
      [this.phase, this.merged, this.startLine] = ['open', merged, line];
    } else if (type === 'run-resume') this.phase = 'open';
    else if (this.phase === 'closed') return error('after-run-end', this.endLine);
    else if (type === 'run-end') [this.phase, this.endLine] = ['closed', line];
    return null;
  }

  private record(e: ProtocolError, lines = e.lines ?? 1): void {
    this.total += lines;
    if (this.kept.length < KEPT) this.kept.push(e);
    if (this.opts.throwOnError) this.assertSound();
  }

  /** Whether an error was found. */
  get damaged(): boolean {
    return this.total > 0;
  }

  /** The errors found (the first 1000), in line order, and how many in all. */
  errors(): { errors: ProtocolError[]; total: number } {
    return { errors: [...this.kept].sort((a, b) => a.line - b.line), total: this.total };
  }

  /** Throw JournalDamagedError naming the first error, if there is one. */
  assertSound(): void {
    const { errors, total } = this.errors();
    const e = errors[0];
    if (e === undefined) return;
    const count = total > 1 ? `; ${total} errors in all` : '';
    throw new JournalDamagedError(
      `journal ${this.file} is damaged: line ${e.line}: ${e.code}: ${protocolMessage(e)}${count}; nothing from it is analysed (soak check <run folder> names every error)`,
    );
  }

  /** What this part found, for the part before it to append(). */
  part(): ProtocolPart {
    return {
      head: { ...this.head },
      firstMark: this.firstMark,
      phase: this.phase,
      endLine: this.endLine,
      errors: [...this.kept],
      total: this.total,
      outcomes: this.outcomes.part(),
      firstT: this.firstT,
      maxT: this.maxT,
      backwards: [...this.backwards],
      sessionLines: [...this.sessionLines],
    };
  }

  /** Judge the next part of the journal (read on its own; `offset`: the lines before it) as if read here. */
  append(p: ProtocolPart, offset: number): void {
    const shift = (e: ProtocolError): ProtocolError => ({ ...e, line: e.line + offset, ref: e.ref && e.ref + offset });
    if (p.head.lines > 0) {
      const e = this.order(p.head.line + offset, p.head.type, false);
      if (e) this.record({ ...e, lines: p.head.lines });
    }
    if (p.firstMark) {
      const e = this.order(p.firstMark.line + offset, p.firstMark.type, false);
      if (e) this.record(e);
      this.phase = p.phase;
      if (p.endLine > 0) this.endLine = p.endLine + offset;
    }
    p.errors.forEach((e, i) => this.record(shift(e), i === p.errors.length - 1 ? 1 + p.total - p.errors.length : 1));
    for (const [session, { line, type, lines }] of p.sessionLines) {
      const e = this.sessionError(line + offset, type, session);
      if (e) this.record({ ...e, lines });
    }
    IdLines.forEach(p.outcomes, (cycle, line) => {
      const first = this.outcomes.see(cycle, line + offset);
      if (first !== 0) this.record({ line: line + offset, code: 'cycle-repeated', type: 'cycle', ref: first, cycle });
    });
    if (!this.merged && this.phase !== 'none') {
      const [first, max] = [p.firstT, this.maxT];
      if (first && max && first.t < max.t)
        this.record({
          line: first.line + offset,
          code: 'time-backwards',
          type: 'event',
          ref: max.line,
          t: first.t,
          refT: max.t,
        });
      for (const e of p.backwards) this.record(shift(e));
    }
    if (p.maxT && (this.maxT === null || p.maxT.t >= this.maxT.t))
      this.maxT = { t: p.maxT.t, line: p.maxT.line + offset };
  }
}
