// The journal's fast path (flat runner events read straight from their bytes) against the reference path (JSON.parse
// on every line), on real journals: the same analysis, the runner's flat events all taken by the fast path, and a
// corrupt line still an IntegrityError naming its line, word for word as the reference path names it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnalysisLineReader } from '../../../harness/analysis/fastpath/line-reader.js';
import { RunAccumulator } from '../../../harness/analysis/accumulator.js';
import { IntegrityError } from '../../../harness/core/errors.js';
import { streamJournal } from '../../../harness/journal/reader.js';
import { loadRuns } from '../../../harness/analysis/load-runs.js';
import { createRng } from '../../../harness/stats/random.js';
import {
  fixtureJournals as fixtures,
  fixtureNames as names,
  fixtureText as journalOf,
  outcomeOf,
  scratchRunFolders,
} from '../../helpers/journals.js';
import { containing } from '../../helpers/match.js';

const runFolder = scratchRunFolders('soak-fast-path-');
/** The analysis (or the error) of `dirs` through one path. */
const outcome = (dirs: string[], fastPath: boolean): Promise<unknown> => outcomeOf(() => loadRuns(dirs, { fastPath }));

/** The lines of a journal the fast path left to JSON.parse. */
function declinedLines(text: string): string[] {
  const dir = runFolder(text);
  const reader = new AnalysisLineReader(new RunAccumulator());
  const declined: string[] = [];
  streamJournal(path.join(dir, 'journal.ndjson'), () => {}, {
    fast: (bytes, start, end, admit) =>
      reader.read(bytes, start, end, admit) || (declined.push(bytes.toString('utf8', start, end)), false),
  });
  return declined;
}

/** Replace line `n` (1-based) of a journal. */
function withLine(text: string, n: number, change: (line: string) => string): string {
  const lines = text.split('\n');
  lines[n - 1] = change(lines[n - 1]!);
  return lines.join('\n');
}

describe('fast path = JSON.parse path, on real journals', () => {
  it.each(names)('%s: the same analysis either way', async (name) => {
    const dir = path.join(fixtures, name);
    const fast = await loadRuns([dir]);
    expect(fast).toEqual(await loadRuns([dir], { fastPath: false }));
    expect(fast.analysis.summary.cycles.total).toBeGreaterThan(0);
  });

  it('several runs as one sample: the same analysis either way', async () => {
    const dirs = names.filter((n) => n.startsWith('process-')).map((n) => path.join(fixtures, n));
    expect(await loadRuns(dirs)).toEqual(await loadRuns(dirs, { fastPath: false }));
  });

  it.each(names)(
    '%s: only rare events go to JSON.parse (run-start, run-end, run-resume, target-info, machine-load, cycles with violations)',
    (name) => {
      const declined = declinedLines(journalOf(name)).map(
        (l) => JSON.parse(l) as { type: string; violations?: unknown[] },
      );
      for (const e of declined)
        expect(
          ['run-start', 'run-end', 'run-resume', 'target-info', 'machine-load', 'cycle'],
          JSON.stringify(e).slice(0, 120),
        ).toContain(e.type);
      expect(declined.filter((e) => e.type === 'cycle' && e.violations!.length === 0)).toEqual([]);
      // machine-load: one per cycle and one per 2 s at most, so rare in a long run but not in a 3-cycle fixture
      const flat = declined.filter((e) => e.type !== 'machine-load');
      expect(flat.length).toBeLessThan(journalOf(name).split('\n').length / 4);
    },
  );
});

describe('fast path: corrupt lines are still caught and named (negative controls)', () => {
  const text = journalOf('process-default');
  const lines = text.split('\n');
  /** A line number of the first event of each flat type the fast path reads. */
  const lineOf = (type: string): number => lines.findIndex((l) => l.includes(`"type":"${type}"`)) + 1;
  const corruptions: [string, (line: string) => string][] = [
    ['a digit replaced by a letter', (l) => l.replace(/(\d)(\d)/, '$1x')],
    ['cut short (a torn write followed by more lines)', (l) => l.slice(0, Math.floor(l.length / 2))],
    ['a NUL byte inside a string', (l) => l.replace('"work"', '"wo\u0000rk"')],
    ['the closing brace missing', (l) => l.slice(0, -1)],
    ['two lines run together (a lost newline)', (l) => `${l.slice(0, 40)}${l}`],
    ['garbage after the closing brace', (l) => `${l}}`],
  ];

  for (const type of ['checkpoint', 'cycle-start', 'kill', 'host-start', 'restore', 'cycle', 'boot']) {
    it.each(corruptions)(
      `${type} line: %s -> IntegrityError naming the line, as JSON.parse's path names it`,
      async (_what, corrupt) => {
        const n = lineOf(type);
        expect(n).toBeGreaterThan(1);
        const dir = runFolder(withLine(text, n, corrupt));
        const fast = await outcome([dir], true);
        expect(fast).toEqual(await outcome([dir], false));
        if ((fast as { error?: string }).error === undefined) return; // the corruption left valid JSON (e.g. no "work" to break)
        expect(fast).toMatchObject({
          error: 'JournalLineError',
          message: containing(`line ${n} is corrupt`),
        });
      },
    );
  }

  it('a corrupt checkpoint line is an IntegrityError (exit code 1) with the file and line', async () => {
    const n = lineOf('checkpoint');
    const dir = runFolder(withLine(text, n, (l) => l.replace('"pauseMs":', '"pauseMs":+')));
    const err = await loadRuns([dir]).then(
      () => null,
      (e: unknown) => e as IntegrityError,
    );
    expect(err).toBeInstanceOf(IntegrityError);
    expect(err!.exitCode).toBe(1);
    expect(err!.message).toContain(
      `journal ${path.join(dir, 'journal.ndjson')} line ${n} is corrupt (not a JSON event)`,
    );
  });

  it('an unsupported schemaVersion on a flat line is named as such, not read by the fast path', async () => {
    const n = lineOf('restore');
    const dir = runFolder(withLine(text, n, (l) => l.replace('"schemaVersion":1', '"schemaVersion":2')));
    expect(await outcome([dir], true)).toEqual({
      error: 'JournalLineError',
      message: `journal ${path.join(dir, 'journal.ndjson')} line ${n}: schemaVersion 2 is not supported (expected 1)`,
    });
  });

  it('a torn last line is dropped and reported either way', async () => {
    const dir = runFolder(text.trimEnd().slice(0, -25));
    const fast = await loadRuns([dir]);
    expect(fast.tornTails).toEqual([path.join(dir, 'journal.ndjson')]);
    expect(fast).toEqual(await loadRuns([dir], { fastPath: false }));
  });

  it('valid JSON in another form (keys reordered, spaces) is left to JSON.parse and counted the same', async () => {
    const n = lineOf('checkpoint');
    const reordered = withLine(text, n, (l) =>
      JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(l) as object).reverse()), null, 1).replace(/\n/g, ''),
    );
    expect(declinedLines(reordered).length).toBe(declinedLines(text).length + 1);
    expect((await loadRuns([runFolder(reordered)])).analysis).toEqual((await loadRuns([runFolder(text)])).analysis);
  });

  it('800 random one-byte mutations: both paths agree every time (same analysis, or the same error)', async () => {
    const rng = createRng(7);
    const bytes = Buffer.from(text);
    let errors = 0;
    for (let i = 0; i < 800; i++) {
      const at = rng.int(0, bytes.length - 2);
      const kind = rng.int(0, 2);
      const mutated =
        kind === 0
          ? Buffer.concat([bytes.subarray(0, at), Buffer.of(rng.int(0, 255)), bytes.subarray(at + 1)])
          : kind === 1
            ? Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)])
            : Buffer.concat([bytes.subarray(0, at), Buffer.of(rng.int(0, 255)), bytes.subarray(at)]);
      const dir = runFolder(mutated);
      const fast = await outcome([dir], true);
      expect(fast, `mutation ${i} at byte ${at}`).toEqual(await outcome([dir], false));
      if ((fast as { error?: string }).error !== undefined) errors++;
    }
    expect(errors).toBeGreaterThan(400); // most mutations break the line: the comparison covered the error path
  });
});
