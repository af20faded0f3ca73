// A journal folded on several threads (byte ranges cut at newlines, partial folds appended in order) gives the
// analysis one pass gives, and names a bad line by its number in the whole file. Worker threads run compiled code,
// so this test loads the harness from dist/ (build first; npm test does). Its time is worker start-up (a few hundred
// ms of module loading per thread, seconds on a loaded machine; the journals are small), so calls that do not depend on
// each other run at once: the same loads, asserted the same way, in a third of the time.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../harness/stats/random.js';
import {
  fixtureJournals as fixtures,
  fixtureNames as names,
  outcomeOf,
  scratchRunFolders,
} from '../helpers/journals.js';
import { repoRoot as root } from '../helpers/paths.js';
import { containing } from '../helpers/match.js';
import { GARBAGE_CASES, GARBAGE_JOURNAL, linesOfType, withLineChanged } from './garbage-cases.js';

const dist = path.join(root, 'dist', 'harness');
if (!existsSync(path.join(dist, 'analysis', 'worker.js')))
  throw new Error(`${dist}/analysis/worker.js is missing: build first (npx tsc -p . or npm test)`);
const { loadRuns } = (await import(
  pathToFileURL(path.join(dist, 'analysis', 'load-runs.js')).href
)) as typeof import('../../harness/analysis/load-runs.js');
const { splitAtNewlines } = (await import(
  pathToFileURL(path.join(dist, 'journal', 'reader.js')).href
)) as typeof import('../../harness/journal/reader.js');

const runFolder = scratchRunFolders('soak-parallel-');

/** Every journal is "long": split over `threads` threads however short it is. */
const parallel = (threads: number, fastPath = true) => ({ parallelFromBytes: 0, threads, fastPath });
const single = { threads: 1 };

const outcome = (dirs: string[], options: object): Promise<unknown> => outcomeOf(() => loadRuns(dirs, options));

/** `task(0..count-1)`, at most `width` at a time, results in order. */
async function pooled<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) results[i] = await task(i);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane));
  return results;
}

describe('several threads = one thread', () => {
  it.each(names)('%s: the same analysis on 2, 3 and 4 threads, fast path on and off', async (name) => {
    const dir = path.join(fixtures, name);
    const [one, ...split] = await Promise.all([
      loadRuns([dir], single),
      ...[2, 3, 4].map((threads) => loadRuns([dir], parallel(threads))),
      loadRuns([dir], parallel(2, false)),
    ]);
    expect(split).toHaveLength(4);
    for (const s of split) expect(s).toEqual(one);
  });

  it('several runs as one sample (cycle ids keyed per run across threads)', async () => {
    const dirs = names.map((n) => path.join(fixtures, n));
    const [threads, one] = await Promise.all([loadRuns(dirs, parallel(3)), loadRuns(dirs, single)]);
    expect(threads).toEqual(one);
  });

  it('splitAtNewlines: ranges cover the file end to end and every cut follows a newline', () => {
    const file = path.join(fixtures, 'process-resumed', 'journal.ndjson');
    const bytes = readFileSync(file);
    const ranges = splitAtNewlines(file, 4);
    expect(ranges).toHaveLength(4);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges.at(-1)!.end).toBe(bytes.length);
    for (let i = 1; i < ranges.length; i++) {
      expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
      expect(bytes[ranges[i]!.start - 1]).toBe(0x0a);
    }
  });
});

describe('bad lines on several threads (negative controls)', () => {
  const text = readFileSync(path.join(fixtures, 'process-torn-checkpoint', 'journal.ndjson'), 'utf8');
  const lines = text.split('\n');
  const cut = splitAtNewlines(path.join(fixtures, 'process-torn-checkpoint', 'journal.ndjson'), 2)[1]!.start;
  /** Line numbers (1-based) of the last line before the cut and the first after it. */
  const before = text.slice(0, cut).split('\n').length - 1;
  /** Break line n without changing its length (the cut stays where it was). */
  const broken = (n: number): string => lines.map((l, i) => (i === n - 1 ? l.replace(/:(\d)/, ':x') : l)).join('\n');

  it.each([
    ['in the second range', before + 5],
    ['the last line of the first range (complete, so not a torn tail)', before],
    ['the first line of the second range', before + 1],
    ['in the first range', 3],
  ])('a corrupt line %s is named by its line in the whole file, as one thread names it', async (_where, n) => {
    const dir = runFolder(broken(n));
    const [threads, one] = await Promise.all([outcome([dir], parallel(2)), outcome([dir], single)]);
    expect(threads).toEqual(one);
    expect(threads).toMatchObject({
      error: 'JournalLineError',
      message: containing(`line ${n} is corrupt`),
    });
  });

  describe.each(GARBAGE_CASES)('valid-JSON garbage: $what', (c) => {
    const all = linesOfType(GARBAGE_JOURNAL, c.type);
    it.each([all[1]!, all.at(-2)!])('on line %i: named by its line in the whole file, as on one thread', async (n) => {
      const dir = runFolder(withLineChanged(GARBAGE_JOURNAL, n, c.change));
      const expected = {
        error: 'JournalLineError',
        message: `journal ${path.join(dir, 'journal.ndjson')} line ${n}: ${c.problem}`,
      };
      const [one, two, three] = await Promise.all([
        outcome([dir], single),
        outcome([dir], parallel(2)),
        outcome([dir], parallel(3, false)),
      ]);
      expect(one).toEqual(expected);
      expect(two).toEqual(expected);
      expect(three).toEqual(expected);
    });
  });

  it('a torn last line (in the last range) is dropped and reported, as on one thread', async () => {
    const dir = runFolder(text.trimEnd().slice(0, -30));
    const [threads, one] = await Promise.all([loadRuns([dir], parallel(2)), loadRuns([dir], single)]);
    expect(threads.tornTails).toHaveLength(1);
    expect(threads).toEqual(one);
  });

  it('60 random one-byte mutations: two threads and one agree every time', async () => {
    const rng = createRng(11);
    const bytes = Buffer.from(text);
    // The same 60 seeded mutations as one at a time (drawn in order first), judged four at a time.
    const mutations = Array.from({ length: 60 }, () => {
      const at = rng.int(0, bytes.length - 2);
      return {
        at,
        dir: runFolder(Buffer.concat([bytes.subarray(0, at), Buffer.of(rng.int(0, 255)), bytes.subarray(at + 1)])),
      };
    });
    const judged = await pooled(mutations.length, 4, async (i) => {
      const { dir } = mutations[i]!;
      const [threads, one] = await Promise.all([outcome([dir], parallel(2)), outcome([dir], single)]);
      return { threads, one };
    });
    expect(judged).toHaveLength(60);
    judged.forEach(({ threads, one }, i) => expect(threads, `mutation ${i} at byte ${mutations[i]!.at}`).toEqual(one));
  });
});
