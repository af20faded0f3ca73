// The journal writer writes every byte of a line: a short write(2) is continued, one that makes no progress or fails
// throws naming the journal; shown with an injected write and with a real short write under RLIMIT_FSIZE.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../harness/journal/writer.js';
import { runStartLine } from '../helpers/journal-events.js';
import { repoRoot } from '../helpers/paths.js';
import { thrown } from '../helpers/thrown.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-short-write-'));
  file = path.join(dir, 'journal.ndjson');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A write(2) that writes at most `most` bytes per call, as a pipe or a nearly full disk may. */
const atMost =
  (most: number, calls: number[]) =>
  (fd: number, data: Uint8Array, off: number, len: number): number => {
    calls.push(len);
    return writeSync(fd, data, off, Math.min(len, most));
  };

describe('JournalWriter on short writes', () => {
  it('continues a short write until the whole line is written', () => {
    const calls: number[] = [];
    writeFileSync(file, runStartLine());
    const w = new JournalWriter(file, () => 1, { write: atMost(7, calls) });
    w.append({ type: 'cycle-start', cycle: 4, phase: 'work' });
    w.append({ type: 'run-end', status: 'complete', cycles: 3 });
    w.close();
    expect(calls.length).toBeGreaterThan(4);
    const { events, tornTail } = readJournal(file);
    expect(tornTail).toBeNull();
    expect(events.map((e) => e.type)).toEqual(['run-start', 'cycle-start', 'run-end']);
  });

  it('throws naming the journal when a write makes no progress', () => {
    const w = new JournalWriter(file, () => 1, { write: () => 0 });
    const err = thrown(() => w.append({ type: 'cycle-start', cycle: 1, phase: 'work' }));
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/journal/);
    w.close();
  });

  const built = path.join(repoRoot, 'dist', 'harness', 'journal', 'writer.js');
  it.skipIf(!existsSync(built))('a real short write (RLIMIT_FSIZE 2 KiB): the append throws naming the journal', () => {
    // The child appends one 3000-byte event: write(2) writes the 2048 bytes the limit allows, then EFBIG.
    const script = `
      import { JournalWriter } from ${JSON.stringify(built)};
      const w = new JournalWriter(process.argv[1], () => 1);
      try { w.append({ type: 'cycle-start', cycle: 1, phase: 'w'.repeat(3000) }); console.log('appended'); }
      catch (e) { console.log('threw: ' + e.message); }`;
    const out = execFileSync('bash', ['-c', 'ulimit -f 2; exec node --input-type=module -e "$0" "$1"', script, file], {
      encoding: 'utf8',
    });
    expect(statSync(file).size).toBe(2048); // the kernel did write short
    expect(out).toMatch(/^threw: .*journal/);
    expect(out).toContain(file);
    expect(readFileSync(file, 'utf8')).not.toContain('\n');
  });
});
