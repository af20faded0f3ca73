// The run journal: durable appends with schemaVersion and t; the reader drops and reports a torn last line, and
// names the line of any corruption before it.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError, IntegrityError } from '../../harness/core/errors.js';
import { JOURNAL_SCHEMA_VERSION } from '../../harness/journal/events.js';
import { JournalWriter, parseJournal, readJournal } from '../../harness/journal/writer.js';
import { runStartLine } from '../helpers/journal-events.js';
import { thrown } from '../helpers/thrown.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-journal-'));
  file = path.join(dir, 'journal.ndjson');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (o: object): string => `${JSON.stringify({ schemaVersion: 1, t: 0, ...o })}\n`;
/** The run-start every journal begins with (protocol.ts). */
const S = runStartLine();
const A = line({ type: 'cycle-start', cycle: 1, phase: 'work' });
const B = line({ type: 'host-start', cycle: 1, pid: 42, mode: 'restore' });
const C = line({ type: 'run-end', status: 'complete', cycles: 1 });

describe('JournalWriter', () => {
  it('appends one JSON line per event with schemaVersion and t (ms, rounded to 3 decimals)', () => {
    const times = [0, 12.34567, 1500.0004];
    writeFileSync(file, S);
    const w = new JournalWriter(file, () => times.shift()!);
    const first = w.append({ type: 'cycle-start', cycle: 1, phase: 'work' });
    w.append({ type: 'host-start', cycle: 1, pid: 7, mode: 'boot' });
    w.append({ type: 'run-end', status: 'complete', cycles: 1 });
    w.close();
    expect(first).toEqual({
      schemaVersion: JOURNAL_SCHEMA_VERSION,
      t: 0,
      type: 'cycle-start',
      cycle: 1,
      phase: 'work',
    });
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { schemaVersion: number; t: number; type: string });
    expect(lines.slice(1).map((l) => [l.schemaVersion, l.t, l.type])).toEqual([
      [1, 0, 'cycle-start'],
      [1, 12.346, 'host-start'],
      [1, 1500, 'run-end'],
    ]);
    expect(readJournal(file)).toEqual({ events: lines, tornTail: null });
  });

  it('re-opening a journal a dead writer left with a torn line cuts the torn line, then appends cleanly', () => {
    writeFileSync(file, `${S}${A}${B}{"schemaVersion":1,"t":3,"type":"cyc`);
    const w = new JournalWriter(file, () => 9);
    w.append({ type: 'run-end', status: 'interrupted', cycles: 0 });
    w.close();
    const read = readJournal(file);
    expect(read.tornTail).toBeNull();
    expect(read.events.map((e) => e.type)).toEqual(['run-start', 'cycle-start', 'host-start', 'run-end']);
  });

  it('re-opening a cleanly ended journal keeps every line', () => {
    writeFileSync(file, `${A}${B}`);
    new JournalWriter(file, () => 1).close();
    expect(readFileSync(file, 'utf8')).toBe(`${A}${B}`);
  });
});

describe('parseJournal', () => {
  it('reads an empty journal as no events', () => {
    expect(parseJournal('', 'j')).toEqual({ events: [], tornTail: null });
  });

  it('drops and reports a torn last line holding partial JSON', () => {
    const torn = '{"schemaVersion":1,"t":5,"type":"kill","cy';
    const r = parseJournal(`${S}${A}${B}${torn}`, 'j');
    expect(r.events.map((e) => e.type)).toEqual(['run-start', 'cycle-start', 'host-start']);
    expect(r.tornTail).toBe(torn);
  });

  it('drops and reports a complete JSON last line without its newline (the fsync may not have covered it)', () => {
    const r = parseJournal(`${S}${A}${B}${C.trimEnd()}`, 'j');
    expect(r.events.map((e) => e.type)).toEqual(['run-start', 'cycle-start', 'host-start']);
    expect(r.tornTail).toBe(C.trimEnd());
  });

  it('drops a torn line that is the only line', () => {
    expect(parseJournal('{"schema', 'j')).toEqual({ events: [], tornTail: '{"schema' });
  });

  it('a corrupt line in the middle throws IntegrityError naming the file and line number (exit code 1)', () => {
    const err = thrown(() =>
      parseJournal(`${S}${A}${B}{"schemaVersion":1,"t":garbage\n${C}`, '/runs/x/journal.ndjson'),
    );
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err.message).toContain('journal /runs/x/journal.ndjson line 4 is corrupt');
    expect(err).toHaveProperty('exitCode', 1);
  });

  it('a JSON line that is not an event (no type) in the middle is corrupt too', () => {
    expect(() => parseJournal(`${S}${A}[1,2]\n${C}`, 'j')).toThrow(/line 3 is corrupt/);
    expect(() => parseJournal(`${S}${A}{"schemaVersion":1}\n${C}`, 'j')).toThrow(/line 3 is corrupt/);
  });

  it('a corrupt line followed by a complete last line is not mistaken for a torn tail', () => {
    expect(() => parseJournal(`{"trunc\n${A}`, 'j')).toThrow(/line 1 is corrupt/);
  });

  it('an unsupported schemaVersion throws IntegrityError naming the line and version', () => {
    const future = `${JSON.stringify({ schemaVersion: 2, t: 0, type: 'run-end', status: 'complete', cycles: 0 })}\n`;
    const err = thrown(() => parseJournal(`${S}${A}${future}${C}`, 'j'));
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err.message).toBe('journal j line 3: schemaVersion 2 is not supported (expected 1)');
    const missing = `${JSON.stringify({ t: 0, type: 'run-end' })}\n`;
    expect(() => parseJournal(missing, 'j')).toThrow(/line 1: schemaVersion undefined is not supported/);
  });
});

describe('readJournal', () => {
  it('a missing file is bad input: InputError, exit code 3, naming the file', () => {
    const missing = path.join(dir, 'nope.ndjson');
    const err = thrown(() => readJournal(missing));
    expect(err).toBeInstanceOf(InputError);
    expect(err).toHaveProperty('exitCode', 3);
    expect(err.message).toContain(missing);
  });

  it('reads a torn file from disk the same as parseJournal', () => {
    writeFileSync(file, `${S}${A}`);
    appendFileSync(file, '{"t":');
    expect(readJournal(file)).toEqual({ events: [JSON.parse(S), JSON.parse(A)], tornTail: '{"t":' });
  });
});
